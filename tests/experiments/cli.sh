#!/bin/sh
# SPDX-License-Identifier: MIT
# The experiments' command lines say what is wrong with an argument, naming it, and exit 2:
# hsaqm-wl (--help exits 0; a bad --seed, --length or --out, an unknown option) and
# hsaqm-experiment (a bad --length, --trace, --out or --seed, a --configs or --trace name no
# file has, a missing file): one message, never a Python traceback, and nothing runs. And a
# process with 40 streams runs (tests/experiments/many-streams.wl); edge criterion (c) gives its
# three verdicts on request logs written here (criteria_check.py).
# Usage: cli.sh HSAQM_WL SOURCE_ROOT PYTHON3 BUILD_ROOT
set -u
wl=$1 src=$2 py=${3:-} build=${4:-}
file="$src/experiments/workloads/w1-light.wl"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; sed 's/^/     | /' "$tmp/err"; fail=1; fi; }

"$wl" --help >"$tmp/out" 2>"$tmp/err"
check "hsaqm-wl --help: the usage on stdout, exit 0" "[ \$? -eq 0 ] && grep -q '^usage:' '$tmp/out'"
"$wl" "$file" --seed abc >/dev/null 2>"$tmp/err"
check "hsaqm-wl --seed abc: exit 2, named" "[ \$? -eq 2 ] && grep -q -- '--seed \"abc\"' '$tmp/err'"
"$wl" "$file" --seed -1 >/dev/null 2>"$tmp/err"
check "hsaqm-wl --seed -1: exit 2" "[ \$? -eq 2 ]"
"$wl" "$file" --length 0 >/dev/null 2>"$tmp/err"
check "hsaqm-wl --length 0: exit 2, named" "[ \$? -eq 2 ] && grep -q -- '--length \"0\"' '$tmp/err'"
"$wl" "$file" --time-scale 3x >/dev/null 2>"$tmp/err"
check "hsaqm-wl --time-scale 3x: exit 2" "[ \$? -eq 2 ] && grep -q -- '--time-scale' '$tmp/err'"
# Fractional numbers follow hsaqm-common/text.h's one rule (hsaqm_parse_double): decimal,
# finite, the whole argument, no leading space or '+'; each refusal names the value.
for v in " 5" "+5" "1e999" "nan" "inf" "0x2" "2x" "2.5.1"; do
  "$wl" "$file" --time-scale "$v" --check >/dev/null 2>"$tmp/err"
  check "hsaqm-wl --time-scale '$v': exit 2, named" \
    "[ \$? -eq 2 ] && grep -q -F -- '--time-scale \"$v\"' '$tmp/err'"
done
for v in " 1s" "+1s" "1e999s" "nans" "0x1s" "1sx" "5es"; do
  "$wl" "$file" --length "$v" --check >/dev/null 2>"$tmp/err"
  check "hsaqm-wl --length '$v': exit 2, named" \
    "[ \$? -eq 2 ] && grep -q -F -- '--length \"$v\"' '$tmp/err'"
done
"$wl" "$file" --time-scale 2.5 --length 1.5 --warmup 250ms --check >/dev/null 2>"$tmp/err"
check "hsaqm-wl --time-scale 2.5 --length 1.5 --warmup 250ms: taken as before (exit 0)" "[ \$? -eq 0 ]"
"$wl" "$file" --time-scale 1e-2 --length 2e3ms --warmup .5s --check >/dev/null 2>"$tmp/err"
check "hsaqm-wl --time-scale 1e-2 --length 2e3ms --warmup .5s: exponents and a bare fraction (exit 0)" "[ \$? -eq 0 ]"
"$wl" "$file" --out "$tmp/no/such/dir/x.json" >/dev/null 2>"$tmp/err"
check "hsaqm-wl --out into a missing folder: said before running, exit 2" \
  "[ \$? -eq 2 ] && grep -q -- '--out .*No such file' '$tmp/err'"
"$wl" "$file" --frobnicate 1 >/dev/null 2>"$tmp/err"
check "hsaqm-wl with an unknown option: exit 2, named" "[ \$? -eq 2 ] && grep -q -- '--frobnicate' '$tmp/err'"

# A serving process with 40 streams (the runner once stopped at 8): every queue made, every
# task's requests served (in-process model, 0.2 s of model time).
"$wl" "$src/tests/experiments/many-streams.wl" --request-log --quiet --out "$tmp/ms.json" 2>"$tmp/err"
check "hsaqm-wl: a process with 40 streams runs (exit 0)" "[ \$? -eq 0 ]"
check "hsaqm-wl: 40 queues made, one per stream" \
  "[ \$(grep -o '\"queue_id\":[0-9]' '$tmp/ms.json' | wc -l) -eq 40 ]"
# Fifteen more: 40 queues on fewer HQDs, doorbells racing the engine's clock. The model once
# lost a request here about once in 15 runs (a late doorbell on an unmapped queue never got
# it mapped: sim/device.c handle_stim); a lost one costs its 30 s of waiting, then the run ends.
lost=0
for i in $(seq 15); do
  "$wl" "$src/tests/experiments/many-streams.wl" --quiet --out "$tmp/ms$i.json" 2>"$tmp/err" || { lost=$i; break; }
done
check "hsaqm-wl: 15 more runs of 40 streams, no request lost" "[ $lost -eq 0 ]"

if [ -z "$py" ]; then
	echo "python3 not found: hsaqm-experiment not checked"
	exit $fail
fi
"$py" "$src/tests/experiments/criteria_check.py" "$src/experiments/runner/hsaqm-experiment" >"$tmp/err" 2>&1
check "hsaqm-experiment's criterion (c): FAIL, PASS and NOT EXERCISED on logs written here" "[ \$? -eq 0 ]"
exp() { "$py" "$src/experiments/runner/hsaqm-experiment" --wl "$wl" ${build:+--build "$build"} "$@"; }
bad() { # NAME EXPECTED-TEXT ARGS...
	name=$1 want=$2
	shift 2
	exp "$@" >"$tmp/out" 2>"$tmp/err"
	check "hsaqm-experiment $name: exit 2, says '$want', no traceback" \
	  "[ \$? -eq 2 ] && grep -q -- \"$want\" '$tmp/err' && ! grep -q Traceback '$tmp/err' && [ ! -d '$tmp/o/w1-light' ]"
}
bad "--length abc" "argument --length: 'abc' is not a duration" --out "$tmp/o" --length abc "$file"
bad "--trace lv2" "'lv2' is not CONFIG:LENGTH" --out "$tmp/o" --trace lv2 "$file"
bad "--trace lv2:soon" "'soon' is not a duration" --out "$tmp/o" --trace lv2:soon "$file"
bad "--trace nope:2s" "no configuration nope" --out "$tmp/o" --trace nope:2s "$file"
bad "--configs nope" "--configs: no configuration nope" --out "$tmp/o" --configs nope "$file"
bad "--seed abc" "'abc' is not a whole decimal number" --out "$tmp/o" --seed abc "$file"
touch "$tmp/afile"
bad "--out onto a file" "--out $tmp/afile" --out "$tmp/afile" "$file"
bad "a missing workload file" "no such workload file" --out "$tmp/o" "$tmp/nope.wl"
exit $fail
