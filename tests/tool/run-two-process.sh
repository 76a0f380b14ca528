#!/bin/sh
# Two processes on one simulated GPU (the shared device process, hsaqm-simd), each started with
# hsaqm-run at its own priority: the hook is loaded and active in both, both programs' work
# completes, each writes its stats with its priority. Skips (77) while the model's shared mode
# is not available, and says why.
# Usage: run-two-process.sh HSAQM_RUN TOOL_CLIENT HSAQM_SIMD HAVE_OPEN_ENV(0|1)
set -u
run=$1 client=$2 simd=$3 have=$4
if [ "$have" != 1 ]; then
  echo "SKIP: sim/ has no hsaqm_sim_open_env() yet (the shared device process is another issue)"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
sock=$tmp/sim.sock
"$simd" -s "$sock" >"$tmp/simd.out" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$sock" ]; then
  echo "SKIP: hsaqm-simd did not start listening: $(cat "$tmp/simd.out")"
  exit 77
fi
export HSAQM_SIM_DEVICE="$sock"
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
"$run" -p high --stats "$tmp/a.json" -- "$client" 0 2 40 >"$tmp/a.out" 2>"$tmp/a.err" &
apid=$!
"$run" -p low --stats "$tmp/b.json" -- "$client" 0 2 40 >"$tmp/b.out" 2>"$tmp/b.err" &
bpid=$!
wait $apid; ast=$?
wait $bpid; bst=$?
if [ $ast -eq 99 ] || [ $bst -eq 99 ]; then
  echo "SKIP: the shared mode returned an error: $(cat "$tmp/a.err" "$tmp/b.err" | head -3)"
  exit 77
fi
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
check "both programs exit 0" "[ $ast -eq 0 ] && [ $bst -eq 0 ]"
check "the hook is active in both" "grep -q '^hsaqm: active' '$tmp/a.out' && grep -q '^hsaqm: active' '$tmp/b.out'"
check "both programs' work completed" "grep -q '^done' '$tmp/a.out' && grep -q '^done' '$tmp/b.out'"
check "each wrote its stats with its priority" \
  "grep -q '\"priority\":50,' '$tmp/a.json' && grep -q '\"priority\":-50,' '$tmp/b.json'"
check "two different processes" \
  "[ \"\$(grep -o '\"pid\":[0-9]*' '$tmp/a.json')\" != \"\$(grep -o '\"pid\":[0-9]*' '$tmp/b.json')\" ]"
[ $fail -eq 0 ] || cat "$tmp/a.err" "$tmp/b.err"
exit $fail
