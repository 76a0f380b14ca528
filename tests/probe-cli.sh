#!/bin/sh
# hsa-queue-probe as a user runs it: exit codes (0 hardware, 1 failure, 2 usage, 3 model), the
# JSON report against the documented schema, Markdown, no colour on a pipe, the model timing
# file, and SIGINT while the Lv3 check holds a queue suspended (the probe resumes it, says so
# and exits 1 promptly). The SIGINT case runs PROBE_TEST, tests/'s build of the same main.c with
# the one test hook (a pause inside the Lv3 suspended window); the installed PROBE has none.
# usage: probe-cli.sh PROBE SOURCE_ROOT PYTHON3|'' PROBE_TEST
set -u
probe=$1
src=$2
py=${3:-}
probe_test=$4
tmp=$(mktemp -d /tmp/hsaqm-probe-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

ok() { passes=$((passes + 1)); echo "ok: $1"; }
bad() { fails=$((fails + 1)); echo "FAIL: $1"; }
expect_rc() { # want got what
	if [ "$1" -eq "$2" ]; then ok "$3 (exit $2)"; else bad "$3: exit $2, want $1"; fi
}

# Usage errors: 2, with a message.
"$probe" --bogus >/dev/null 2>"$tmp/err"; expect_rc 2 $? "unknown option"
grep -q "unknown option" "$tmp/err" && ok "unknown option is named" || bad "unknown option message"
"$probe" --trials 0 >/dev/null 2>&1; expect_rc 2 $? "--trials 0"
"$probe" --trials x >/dev/null 2>&1; expect_rc 2 $? "--trials x"
"$probe" --check lv9 >/dev/null 2>&1; expect_rc 2 $? "--check lv9"
"$probe" --lv2-interval 0 >/dev/null 2>&1; expect_rc 2 $? "--lv2-interval 0"
"$probe" --lv2-interval 9 >/dev/null 2>&1; expect_rc 2 $? "--lv2-interval 9"
"$probe" --sim --quiet --no-live --device 7 >/dev/null 2>"$tmp/err"; expect_rc 2 $? "--device 7 on a one-GPU model"
grep -q "no such GPU" "$tmp/err" && ok "--device 7 says why" || bad "--device 7 message"
# An option without its value is named as such, not as an unknown option.
"$probe" --device >/dev/null 2>"$tmp/err"; expect_rc 2 $? "--device without a value"
grep -q "option '--device' needs a value" "$tmp/err" && ok "--device without a value is named" ||
	bad "--device without a value: $(cat "$tmp/err")"
grep -q "unknown option" "$tmp/err" && bad "--device without a value called unknown" ||
	ok "--device without a value is not 'unknown'"
"$probe" --sim-time later >/dev/null 2>"$tmp/err"; expect_rc 2 $? "--sim-time later"
grep -q "bad value 'later' for --sim-time" "$tmp/err" && ok "--sim-time names the bad value" ||
	bad "--sim-time message"
"$probe" extra >/dev/null 2>&1; expect_rc 2 $? "stray argument"
"$probe" --help >"$tmp/help"; expect_rc 0 $? "--help"
grep -q "3  report produced on the device model" "$tmp/help" && ok "--help documents exit codes" ||
	bad "--help lacks the exit codes"

# The model: exit 3, progress on stderr, no colour on a pipe.
"$probe" --sim --quick --trials 1 --check lv3 >"$tmp/text" 2>"$tmp/progress"
expect_rc 3 $? "--sim report"
grep -q "MODEL FIGURES, NOT HARDWARE" "$tmp/text" && ok "text says model figures" || bad "model banner"
grep -q "lv3: full occupancy trial 1 of 1" "$tmp/progress" && ok "progress names GPU, check, trial" ||
	bad "progress lines"
if grep -q "$(printf '\033')" "$tmp/text"; then bad "colour on a pipe"; else ok "no colour on a pipe"; fi

# Without /dev/kfd the probe falls back to the model by itself and says so.
if [ ! -e /dev/kfd ]; then
	"$probe" --quick --quiet --no-live >/dev/null 2>"$tmp/err"; expect_rc 3 $? "no GPU: model fallback"
	grep -q "no usable AMD GPU" "$tmp/err" && ok "fallback is announced" || bad "fallback message"
fi

# Markdown for sharing.
"$probe" --sim --quick --quiet --trials 1 --check lv3 --markdown >"$tmp/md"; expect_rc 3 $? "--markdown"
grep -q "^| figure (model) | median | P99 | min | max | n | first |" "$tmp/md" && ok "markdown table" ||
	bad "markdown table"

# The model timing file (loaded by sim/ in test-probe-outputs). The model runs in virtual time by
# default, so the figures are device time: the default profile's constants come back exactly.
"$probe" --sim --quick --quiet --trials 2 --check lv3,update_queue --emit-sim-profile "$tmp/prof" \
	--write-profile "$tmp/gpu" >/dev/null 2>&1
expect_rc 3 $? "--emit-sim-profile"
grep -q "^dbg_suspend_ns [0-9][0-9]*  # measured: hsa-queue-probe" "$tmp/prof" && ok "profile lines" ||
	bad "profile content"
for kv in "cwsr_save_ns_per_wave 1000" "cwsr_restore_ns_per_wave 1000" "hws_unmap_ns 20000" \
	"dbg_suspend_ns 50000" "dbg_resume_ns 50000" "hws_map_ns 20000"; do
	grep -q "^$kv " "$tmp/prof" && ok "recovered: $kv" || bad "not recovered: $kv ($(grep "^${kv%% *} " "$tmp/prof"))"
done
grep -q "^hsaqm-gpu-profile 1$" "$tmp/gpu" && grep -q "^gpu 0x[0-9a-f]* dbg_trap supported " "$tmp/gpu" &&
	grep -q "^gpu 0x[0-9a-f]* update_queue supported " "$tmp/gpu" && ok "GPU profile written" ||
	bad "GPU profile content"
"$probe" --sim --quiet --no-live --emit-sim-profile "$tmp/prof2" >/dev/null 2>&1
expect_rc 1 $? "--emit-sim-profile with nothing measured"

# JSON against the documented schema.
"$probe" --sim --quick --quiet --trials 1 --json >"$tmp/json"
expect_rc 3 $? "--json"
if [ -n "$py" ]; then
	"$py" "$src/tests/probe-schema-check.py" "$src/tools/probe/report-schema.json" \
		"$src/docs/probe-report.md" "$tmp/json"
	expect_rc 0 $? "JSON validates against tools/probe/report-schema.json"
	# Lv2 at a guardian every 4 kernels: its figures, by name, against the schema too.
	"$probe" --sim --quick --quiet --trials 2 --check lv1,lv2 --lv2-interval 4 --json \
		>"$tmp/json4"
	expect_rc 3 $? "--json --lv2-interval 4"
	"$py" "$src/tests/probe-schema-check.py" "$src/tools/probe/report-schema.json" \
		"$src/docs/probe-report.md" "$tmp/json4"
	expect_rc 0 $? "Lv1/Lv2 JSON validates"
	grep -q '"lv2_interval": 4' "$tmp/json4" && ok "the interval is in the report" ||
		bad "lv2_interval missing from the JSON"
	grep -q '"name": "launched_after_close"' "$tmp/json4" && ok "Lv2 figures in the JSON" ||
		bad "Lv2 figures missing from the JSON"
else
	echo "skip: no python3, JSON schema not checked"
fi

# The shipped probe reads no test-only variable: the pause's name is only in the test build.
n=$(grep -a -c HSAQM_PROBE_TEST "$probe")
[ "$n" -eq 0 ] && ok "the installed probe has no HSAQM_PROBE_TEST_* variable" ||
	bad "the installed probe contains HSAQM_PROBE_TEST ($n lines of $probe)"
grep -a -q HSAQM_PROBE_TEST_PAUSE_LV3_MS "$probe_test" && ok "the test build has the pause hook" ||
	bad "$probe_test lacks HSAQM_PROBE_TEST_PAUSE_LV3_MS: the SIGINT case below would not pause"

# SIGINT while a queue is suspended: the probe resumes it and exits 1 within a second or two.
HSAQM_PROBE_TEST_PAUSE_LV3_MS=5000 "$probe_test" --sim --quick --trials 1 --check lv3 \
	>"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "lv3: full occupancy trial 1" "$tmp/int.err"; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.5 # inside the 5 s suspended window
start=$(date +%s)
kill -INT $pid
wait $pid
rc=$?
took=$(($(date +%s) - start))
expect_rc 1 $rc "SIGINT during Lv3"
[ "$took" -le 3 ] && ok "SIGINT handled promptly (${took}s)" || bad "SIGINT took ${took}s"
grep -q "every queue the probe stopped was restarted" "$tmp/int.err" && ok "SIGINT: queues restarted" ||
	bad "SIGINT message"
grep -q "INTERRUPTED" "$tmp/int.out" && ok "the report says interrupted" || bad "report lacks INTERRUPTED"
grep -q "could not test: could not test" "$tmp/int.err" "$tmp/int.out" &&
	bad "the verdict is said twice" || ok "the verdict is said once"
grep -q "could not test: interrupted by signal" "$tmp/int.err" && ok "interrupted verdict line" ||
	bad "interrupted verdict line: $(grep -i interrupt "$tmp/int.err" | head -2)"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
