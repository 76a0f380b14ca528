#!/bin/sh
# A wait no queue of its own process can end, across processes (docs/lib.md "Dependencies
# and priority inheritance"): a high process whose queue waits on a value its host sets only
# once a low process has finished. hsaqmd holds the low process while the high one is busy;
# if the high queue kept counting as demand while its head waits, the low process would
# never finish and neither would the high one. The daemon's own liveness rule is set far out
# of reach (hold_progress_ms 60 s), so only the tool's bound can release the low process:
# the high queue stalls (dep_stalls 1), the daemon counts no stall, both complete.
# Usage: run-xproc-deps.sh HSAQM_RUN XPROC_CLIENT HSAQM_SIMD HSAQMD HSAQMCTL
# T_DEP_BOUND_MS=60000 shows the deadlock the bound prevents: the low process times out (98).
set -u
run=$1 client=$2 simd=$3 hsaqmd=$4 ctl=$5
. "$(dirname "$0")/t_xproc.sh"

"$simd" -s "$tmp/sim.sock" >"$tmp/simd.out" 2>&1 &
pids="$pids $!"
wait_sock "$tmp/sim.sock" || { echo "FAIL hsaqm-simd did not start: $(cat "$tmp/simd.out")"; exit 1; }
export HSAQM_SIM_DEVICE="$tmp/sim.sock"
export HSAQM_LEVEL=lv2 HSAQM_LV2_INTERVAL=1 HSAQM_DEP_BOUND_MS=${T_DEP_BOUND_MS:-10}
printf 'cap.default = 100\nsocket_mode = 0600\nhold_progress_ms = 60000\n' >"$tmp/hsaqmd.conf"
"$hsaqmd" --socket "$tmp/d.sock" --config "$tmp/hsaqmd.conf" >"$tmp/hsaqmd.out" 2>&1 &
pids="$pids $!"
wait_sock "$tmp/d.sock" || { echo "FAIL hsaqmd did not start: $(cat "$tmp/hsaqmd.out")"; exit 1; }

# The low process first, keeping the GPU busy for 1 s; then the high one, whose 2 ms kernel is
# demand the daemon holds the low one for, and whose head then waits on the low one's end.
"$run" -p low --daemon "$tmp/d.sock" -- "$client" low 500 1 >"$tmp/low.out" 2>"$tmp/low.err" &
lp=$!; pids="$pids $lp"
sleep 0.3
"$run" -p high --daemon "$tmp/d.sock" -- "$client" waithost "$tmp/low.done" \
  >"$tmp/high.out" 2>"$tmp/high.err" &
hp=$!; pids="$pids $hp"
wait $lp; lst=$?
# The high process still waits (its host sets the value only once the file is there): what
# the node shows of its stall now.
"$ctl" --socket "$tmp/d.sock" list --json >"$tmp/list.json" 2>&1
"$ctl" --socket "$tmp/d.sock" list >"$tmp/list.txt" 2>&1
"$ctl" --socket "$tmp/d.sock" metrics >"$tmp/metrics.txt" 2>&1
touch "$tmp/low.done"
wait $hp; hst=$?
"$ctl" --socket "$tmp/d.sock" stats --json >"$tmp/stats.json" 2>&1

check "the low process completed beside a high one that waits on it (exit $lst)" "[ $lst -eq 0 ] && grep -q '^done' '$tmp/low.out'"
holds=$(field "$tmp/low.out" holds)
check "the daemon held the low process for the high one (holds ${holds:-?})" "[ '${holds:-0}' -ge 1 ]"
check "the high process completed once the host set its value (exit $hst)" "[ $hst -eq 0 ] && grep -q '^done' '$tmp/high.out'"
stalls=$(sed -n 's/^dep_stalls \([0-9]*\).*/\1/p' "$tmp/high.out")
waits=$(sed -n 's/.*dep_waits \([0-9]*\).*/\1/p' "$tmp/high.out")
check "the high queue's wait was seen (dep_waits ${waits:-?}) and bounded (dep_stalls ${stalls:-?})" \
  "[ '${waits:-0}' -ge 1 ] && [ '${stalls:-0}' -ge 1 ]"
dstalls=$(sed -n 's/.*"stalls": *\([0-9]*\).*/\1/p' "$tmp/stats.json" | head -1)
check "the daemon's liveness rule did not have to act (stalls ${dstalls:-?})" "[ '${dstalls:-x}' = 0 ]"
check "hsaqmctl list shows the high queue's stall (dep_stalls 1)" "grep -q '\"dep_stalls\": 1' '$tmp/list.json' && grep -q 'dep-stalls 1' '$tmp/list.txt'"
check "the metrics count it" "grep -q '^hsaqmd_queue_dep_stalls_total{.*} 1\$' '$tmp/metrics.txt'"
check "the tool said the stall once" "[ \$(grep -c 'no longer holds lower queues' '$tmp/high.err') -eq 1 ]"
if [ $fail -ne 0 ]; then
  for f in high.out high.err low.out low.err hsaqmd.out stats.json list.txt; do echo "--- $f"; tail -n 15 "$tmp/$f"; done
fi
exit $fail
