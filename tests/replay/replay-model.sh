#!/bin/sh
# SPDX-License-Identifier: MIT
# Record, then replay (docs/replay.md), all on the model: W1 light's two processes (online
# ResNet-18 at 10 req/s, offline ResNet-50 back to back) run natively for 3 s of model time on
# hsaqm-simd, each under hsaqm-run --record (pass-through); hsaqm-experiment --replay turns both
# recordings into a workload and runs it native and at Lv2. Asserted, per recorded queue: every
# kernel object is replayed as many times as recorded (exactly for the open-loop online queue,
# within 5 % for the closed-loop offline one, whose count is its throughput); the native
# replay's online P50 within 10 % and P95 within 20 % of the recording's (its P99 printed with
# its error, below), the offline throughput within 5 %; each queue's kernel times divided
# by the recording's per-kernel times (the recorder's own signals); the kernel times were fitted (the
# native runs of --replay-fit, every queue, its largest P50 error within 10 %); the Lv2 replay ran with the tool
# active; the report carries the comparison and the limits. Bad --replay arguments: one line,
# exit 2. MODEL FIGURES.
# The P99 is not asserted: the model runs in real time (--time-scale 1) and about 40 online
# requests make the P99 their slowest one, which one stall of a loaded host decides (beside
# stress-ng, in the ASan build, a recorded P99 of 7.9 ms against a P50 of 2.5 and a replayed
# 3.3). The host's lateness does not tell such a run apart here: the runner's online thread
# submits some request 0.2-4.5 ms (model time) after its planned instant on an idle machine
# too. The P95, the second slowest, is asserted; one stall does not move it. The P99 is judged
# by replay-validate's full runs (docs/replay.md "Validation").
# Usage: replay-model.sh SOURCE_ROOT BUILD_ROOT PYTHON3
set -u
src=$1 build=$2 py=${3:-}
if [ -z "$py" ]; then
	echo "SKIP: python3 not installed (apt-get install python3): hsaqm-experiment is a Python program"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
simd_pid=
cleanup() { [ -n "$simd_pid" ] && kill "$simd_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
# KEEP_TMP=1: keep the recordings and the replay for a person to read (the path: mktemp's).
[ -n "${KEEP_TMP:-}" ] && trap - EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
unset HSAQM_LEVEL HSAQM_RECORD HSAQM_RECORD_MAX_MB HSAQM_DAEMON HSA_TOOLS_LIB
wl=$build/experiments/runner/hsaqm-wl
exp=$src/experiments/runner/hsaqm-experiment

# The recording: both processes start at one model instant, as the runner starts them.
"$build/tools/simd/hsaqm-simd" --socket "$tmp/sim.sock" --time-scale 1 --seed 1 >"$tmp/simd.log" 2>&1 &
simd_pid=$!
i=0
while [ ! -S "$tmp/sim.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
start=$(( $("$py" -c 'import time; print(time.monotonic_ns())') + 1500000000 ))
for p in online offline; do
	HSAQM_SIM_DEVICE=$tmp/sim.sock "$build/tools/run/hsaqm-run" --record "$tmp/$p.rec" -- \
		"$wl" "$src/experiments/workloads/w1-light.wl" --config native --process $p \
		--length 3s --start-mono $start --out "$tmp/$p.json" --quiet 2>"$tmp/$p.err" &
done
wait %2 %3 2>/dev/null || wait
kill "$simd_pid" 2>/dev/null
wait "$simd_pid" 2>/dev/null
simd_pid=
check "both recorded runs wrote their results" "[ -s '$tmp/online.json' ] && [ -s '$tmp/offline.json' ]"
"$build/tools/record/hsaqm-record-dump" "$tmp/online.rec" "$tmp/offline.rec" >"$tmp/rec.jsonl"
check "the recordings have dispatch times (TIMES) and clock pairs" \
  "[ \$(grep -c '\"kind\":\"times\"' '$tmp/rec.jsonl') -ge 30 ] && grep -q '\"kind\":\"clock\"' '$tmp/rec.jsonl'"

"$py" "$exp" --build "$build" --replay "$tmp/online.rec" "$tmp/offline.rec" --configs native,lv2 \
	--out "$tmp/out" --no-png --no-progress >"$tmp/replay.out" 2>&1
rc=$?
cat "$tmp/replay.out"
check "hsaqm-experiment --replay ran (exit 0)" "[ $rc -eq 0 ]"
"$py" - "$tmp/out" <<'PYEOF' || fail=1
import glob, json, os, sys
out = sys.argv[1]
bad = []
docs = glob.glob(os.path.join(out, "replay-*", "replay.json"))
if len(docs) != 1:
    print("FAIL no replay.json in", out)
    sys.exit(1)
d = json.load(open(docs[0]))
qs = d["queues"]
if len(qs) != 2:
    bad.append("%d queues replayed, not 2" % len(qs))
for q in qs:
    rec, rep = q["recorded"], q["replayed_native"]
    if not rep:
        bad.append("%s: no native replay" % q["queue"])
        continue
    closed = q["arrival"]["arrival"] == "closed"
    print("     %s (%s, %s): recorded P50 %.3f P95 %.3f P99 %.3f ms %.1f req/s | replayed P50 %.3f "
          "P95 %.3f P99 %.3f ms %.1f req/s" % (
              q["workload_process"], q["priority"], q["arrival"]["arrival"], rec["latency_p50_ms"],
              rec["latency_p95_ms"], rec["latency_p99_ms"], rec["throughput_rps"], rep["latency_p50_ms"],
              rep["latency_p95_ms"], rep["latency_p99_ms"], rep["throughput_rps"]))
    # Recorded at level 0 (pass-through): every kernel has its own times, so a request's time
    # is divided among its kernels as theirs divide, not evenly.
    if q.get("split") != "per-kernel times":
        bad.append("%s: its kernel times were split %s, not by per-kernel times" % (q["queue"], q.get("split")))
    if set(rec["dispatches"]) != set(rep["dispatches"]):
        bad.append("%s: kernel objects differ: %s vs %s" % (q["queue"], sorted(rec["dispatches"]), sorted(rep["dispatches"])))
    for k, n in rec["dispatches"].items():
        m = rep["dispatches"].get(k, 0)
        if (closed and abs(m - n) > 0.05 * n) or (not closed and m != n):
            bad.append("%s: kernel %s recorded %d times, replayed %d" % (q["queue"], k, n, m))
    if closed:
        if abs(rep["throughput_rps"] / rec["throughput_rps"] - 1) > 0.05:
            bad.append("%s: offline throughput %.1f vs recorded %.1f (more than 5 %%)"
                       % (q["queue"], rep["throughput_rps"], rec["throughput_rps"]))
    else:
        print("     %s: P99 error %+.1f %% (printed, not asserted: one host stall decides it)"
              % (q["queue"], 100 * (rep["latency_p99_ms"] / rec["latency_p99_ms"] - 1)))
        for m, tol in (("latency_p50_ms", 0.10), ("latency_p95_ms", 0.20)):
            if abs(rep[m] / rec[m] - 1) > tol:
                bad.append("%s: native %s %.3f vs recorded %.3f (more than %d %%)"
                           % (q["queue"], m, rep[m], rec[m], tol * 100))
fit = d.get("fit") or {}
print("     fit: %s native run(s), largest P50 error %s, scales %s"
      % (fit.get("runs"), fit.get("largest_error"), fit.get("scales")))
if not fit.get("runs") or fit.get("largest_error") is None or len(fit.get("scales") or {}) != 2:
    bad.append("the kernel times were not fitted (--replay-fit's native runs): %r" % fit)
elif fit["largest_error"] > 0.10:
    bad.append("the fit left a queue's native P50 %.1f %% from the recording's" % (100 * fit["largest_error"]))
if not any(q["arrival"]["arrival"] == "periodic" and q["priority"] == "high" for q in qs):
    bad.append("the online queue was not found periodic and high")
lv2 = glob.glob(os.path.join(os.path.dirname(docs[0]), "lv2.json"))
if not lv2 or not all((p.get("tool_status") or "").startswith("active")
                      for p in json.load(open(lv2[0]))["processes"]):
    bad.append("the Lv2 replay did not run with the tool active in every process")
md = glob.glob(os.path.join(os.path.dirname(docs[0]), "replay-*.md"))
text = open(md[0]).read() if md else ""
for needle in ("The recording beside its replay", "does not model", "caches, memory bandwidth and power"):
    if needle not in text:
        bad.append("the report lacks %r" % needle)
for b in bad:
    print("FAIL " + b)
if not bad:
    print("ok   dispatches per kernel, native latencies and throughput as recorded; Lv2 ran; report complete")
sys.exit(1 if bad else 0)
PYEOF

# Bad arguments: one line naming the input, exit 2, nothing run.
"$py" "$exp" --build "$build" --replay "$tmp/nope.rec" --out "$tmp/o2" >/dev/null 2>"$tmp/e1"
check "--replay of a missing file: exit 2 naming it" "[ \$? -eq 2 ] && grep -q 'nope.rec: no such recording' '$tmp/e1'"
"$py" "$exp" --build "$build" --replay "$tmp/online.json" --out "$tmp/o3" >/dev/null 2>"$tmp/e2"
check "--replay of a file that is not a recording: exit 2 naming it" \
  "[ \$? -eq 2 ] && grep -q 'online.json: not an hsaqm recording' '$tmp/e2'"
"$py" "$exp" --build "$build" --replay "$tmp/online.rec" "$src/experiments/workloads/w1-light.wl" --out "$tmp/o4" >/dev/null 2>"$tmp/e3"
check "--replay with a workload file too: exit 2" "[ \$? -eq 2 ]"
exit $fail
