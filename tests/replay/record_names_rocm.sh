#!/bin/sh
# A recording through the real stack names every dispatch, times each, and replays them (issue 26
# items 1 and 3): in a Debian root (rocm-6.4, rocm-7.2), tests/replay/hip_names.hip, built with
# the root's own hipcc, runs under `hsaqm-run --record` on the device model through the emulated
# /dev/kfd (sim/kfdemu/). Asserted on the recording (hsaqm-record-dump):
#  - every kernel dispatch has a kernel_name (the tool learnt it when HIP froze the executable);
#  - per name, exactly the dispatches the program launched (and the emulation's own per-name
#    counts agree);
#  - every kernel dispatch has a times record with start <= end;
# then `hsaqm-experiment --replay REC --configs native`: replay.json lists, per queue, the same
# kernels by name with the same dispatch counts recorded and replayed natively.
#
#   record_names_rocm.sh ROOT BUILD_DIR OUT_DIR [PYTHON]
#
# Exit 0 pass, 1 fail (saying why), 77 when the root cannot be built or used here (the reason),
# or this is a sanitizer build (the roots' programs are not instrumented).
set -u
root=$1
build=$(cd "$2" && pwd)
work=$3
py=${4:-python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "${work:?}"/*
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
kfdemu=$build/sim/kfdemu/libhsaqm-kfdemu.so
run_tool=$build/tools/run/hsaqm-run
dump=$build/tools/record/hsaqm-record-dump
exp=$src/experiments/runner/hsaqm-experiment
[ -f "$kfdemu" ] || { echo "SKIP: no emulated /dev/kfd in this build (libhsa-runtime-dev, libdrm-dev)"; exit 77; }
if [ -c /dev/kfd ]; then
	echo "SKIP: a real /dev/kfd is present: this test runs on the device model only"
	exit 77
fi
command -v "$py" >/dev/null 2>&1 || { echo "SKIP: python3 not installed: hsaqm-experiment is a Python program"; exit 77; }
t_root_ready
t_root_uninstrumented "$kfdemu"
t_root_binds "$build" "$work"

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

if ! t_root_run -- hipcc --offload-arch=gfx942 -O2 -o "$work/hip_names" \
	"$src/tests/replay/hip_names.hip" >"$work/hipcc.log" 2>&1; then
	cat "$work/hipcc.log"
	echo "FAIL: the $root root's hipcc could not build tests/replay/hip_names.hip"
	exit 1
fi
table=$work/kernels.txt
printf '%s\n' "hsaqm_rec_alpha 20000" "hsaqm_rec_beta 50000" "hsaqm_rec_gamma 100000" > "$table"
rec=$work/names.rec
rep=$work/emulation.report
t_root_run --env "LD_PRELOAD=$kfdemu" --env "HSAQM_KFDEMU_KERNELS=$table" \
	--env "HSAQM_KFDEMU_REPORT=$rep" --env HSAQM_LOG= --env GPU_FORCE_QUEUE_PROFILING=1 -- \
	timeout 240 "$run_tool" --daemon off --record "$rec" -- "$work/hip_names" \
	>"$work/run.out" 2>"$work/run.err"
status=$?
echo "== hsaqm-run --record -- hip_names ($root): exit $status"
cat "$work/run.out"
if [ "$status" -ne 0 ] || ! grep -q '^PASS$' "$work/run.out"; then
	cat "$work/run.err"
	echo "FAIL: the program did not pass under hsaqm-run --record"
	exit 1
fi
if ! "$dump" "$rec" >"$work/dump.jsonl" 2>"$work/dump.err"; then
	cat "$work/dump.err"
	echo "FAIL: hsaqm-record-dump could not read the recording"
	exit 1
fi
# What was launched, what the recording says, what the emulation counted, by name.
awk '$1 == "launched" { print $2, $3 }' "$work/run.out" | sort > "$work/launched.txt"
awk '$1 == "kernel" { d[$2] += $4 } END { for (k in d) print k, d[k] }' "$rep" | sort \
	> "$work/emulated.txt"
"$py" - "$work/dump.jsonl" "$work/launched.txt" "$work/emulated.txt" <<'EOF' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
launched = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[2]) if l.strip())
emulated = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[3]) if l.strip())
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg)
disp = [r for r in recs if r.get("kind") == "kernel_dispatch"]
times = {(r["pid"], r["queue"], r["index"]): r for r in recs if r.get("kind") == "times"}
names = [r for r in recs if r.get("kind") == "kernel"]
print("recording: %d kernel dispatches, %d times records, %d kernel names"
      % (len(disp), len(times), len(names)))
unnamed = [r for r in disp if "kernel_name" not in r]
if unnamed:
    bad("%d of %d kernel dispatches have no kernel_name, e.g. %s"
        % (len(unnamed), len(disp), json.dumps(unnamed[0])))
counts = {}
for r in disp:
    counts[r.get("kernel_name", r["kernel_object"])] = counts.get(r.get("kernel_name", r["kernel_object"]), 0) + 1
print("recorded per name:", json.dumps(counts, sort_keys=True))
print("launched:", json.dumps(launched, sort_keys=True))
print("the emulation counted:", json.dumps(emulated, sort_keys=True))
if counts != launched:
    bad("the recorded dispatches per name %s are not what the program launched %s"
        % (json.dumps(counts, sort_keys=True), json.dumps(launched, sort_keys=True)))
for k, n in launched.items():
    if emulated.get(k) != n:
        bad("the emulation ran %s %s times, the program launched it %d times" % (k, emulated.get(k), n))
untimed = [r for r in disp if (r["pid"], r["queue"], r["index"]) not in times]
if untimed:
    bad("%d kernel dispatches have no start/end times, e.g. %s" % (len(untimed), json.dumps(untimed[0])))
for key, t in times.items():
    if not (0 < t["start"] <= t["end"]):
        bad("dispatch %s: start %s end %s" % (key, t["start"], t["end"]))
sys.exit(0 if ok else 1)
EOF

# The replay: the same kernels, by name, as often natively as recorded.
"$py" "$exp" --build "$build" --replay "$rec" --configs native --out "$work/replay" \
	--no-png --no-progress >"$work/replay.out" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
	tail -n 30 "$work/replay.out"
	bad "hsaqm-experiment --replay exited $status"
else
	"$py" - "$work/replay" "$work/launched.txt" <<'EOF' || fail=1
import glob, json, os, sys
docs = glob.glob(os.path.join(sys.argv[1], "replay-*", "replay.json"))
launched = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[2]) if l.strip())
if len(docs) != 1:
    print("FAIL: %d replay.json files in %s" % (len(docs), sys.argv[1]))
    sys.exit(1)
ok = True
rec, rep = {}, {}
for q in json.load(open(docs[0]))["queues"]:
    for k, n in q["recorded"]["dispatches"].items():
        rec[k] = rec.get(k, 0) + n
    if not q["replayed_native"]:
        print("FAIL: queue %s was not replayed natively" % q["queue"])
        ok = False
        continue
    for k, n in q["replayed_native"]["dispatches"].items():
        rep[k] = rep.get(k, 0) + n
print("replay.json recorded:", json.dumps(rec, sort_keys=True))
print("replay.json replayed natively:", json.dumps(rep, sort_keys=True))
if rec != launched:
    print("FAIL: the replay's recorded dispatches per kernel are not the launched ones")
    ok = False
if rep != launched:
    print("FAIL: the native replay did not run each kernel as often as it was launched")
    ok = False
sys.exit(0 if ok else 1)
EOF
fi
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
