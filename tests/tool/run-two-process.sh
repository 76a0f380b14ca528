#!/bin/sh
# Two processes on one simulated GPU (the shared device process, hsaqm-simd), each started with
# hsaqm-run at its own priority: the hook is loaded and active in both, both programs' work
# completes, each writes its stats with its priority. Nothing here is optional: the device
# process not starting or a client's model, hsa_init or queue failing is a failure, said.
# Usage: run-two-process.sh HSAQM_RUN TOOL_CLIENT HSAQM_SIMD
set -u
run=$1 client=$2 simd=$3
tmp=$(mktemp -d) || exit 1
sock=$tmp/sim.sock
"$simd" -s "$sock" >"$tmp/simd.out" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$sock" ]; then
  echo "FAIL hsaqm-simd did not start listening on $sock: $(cat "$tmp/simd.out")"
  exit 1
fi
export HSAQM_SIM_DEVICE="$sock"
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
"$run" -p high --stats "$tmp/a.json" -- "$client" 0 2 40 >"$tmp/a.out" 2>"$tmp/a.err" &
apid=$!
"$run" -p low --stats "$tmp/b.json" -- "$client" 0 2 40 >"$tmp/b.out" 2>"$tmp/b.err" &
bpid=$!
wait $apid; ast=$?
wait $bpid; bst=$?
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# Exit 99: the client's model (the device process), hsa_init or a queue creation failed.
check "both clients reached the device process, hsa_init and their queues (exit $ast, $bst; 99: failed)" \
  "[ $ast -ne 99 ] && [ $bst -ne 99 ]"
check "both programs exit 0" "[ $ast -eq 0 ] && [ $bst -eq 0 ]"
check "the hook is active in both" "grep -q '^hsaqm: active' '$tmp/a.out' && grep -q '^hsaqm: active' '$tmp/b.out'"
check "both programs' work completed" "grep -q '^done' '$tmp/a.out' && grep -q '^done' '$tmp/b.out'"
check "each wrote its stats with its priority" \
  "grep -q '\"priority\":50,' '$tmp/a.json' && grep -q '\"priority\":-50,' '$tmp/b.json'"
check "two different processes" \
  "[ \"\$(grep -o '\"pid\":[0-9]*' '$tmp/a.json')\" != \"\$(grep -o '\"pid\":[0-9]*' '$tmp/b.json')\" ]"
[ $fail -eq 0 ] || cat "$tmp/a.err" "$tmp/b.err"
exit $fail
