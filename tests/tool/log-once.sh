#!/bin/sh
# A once-only warning is said exactly once in each process (docs/lib.md, "Logging"): a bad
# HSAQM_LOG, in processes that hold the program's code, the device model, the tool library and
# the libhsaqm.so it loads (tool/log_once.c).
#   1  one such process says it once;
#   2  two such processes, each PID 1 of its own PID namespace and both in one network
#      namespace (the containers of one Kubernetes pod), alive at the same time, say it once
#      each: nothing that decides "once" is a name one process could take from the other.
# Part 2 needs `unshare --pid --fork` (root, or CAP_SYS_ADMIN): without it the test says why and
# skips (77) once part 1 passed. CI runs as root.
# Usage: log-once.sh LOG_ONCE TOOL_LIB
set -u
helper=$1 tool=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
export HSAQM_LOG=bogus
unset HSA_TOOLS_LIB HSAQM_SIM_DEVICE
warning='HSAQM_LOG="bogus" is not one of'
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
said() { grep -c "$warning" "$1"; }

# ---- 1: one process, the tool and libhsaqm.so loaded --------------------------------------
"$helper" "$tool" "$tmp" solo - >"$tmp/solo.out" 2>"$tmp/solo.err"
st=$?
check "one process: exit 0 with the tool active and libhsaqm.so loaded (exit $st)" \
  "[ $st -eq 0 ] && grep -q 'tool active libhsaqm loaded' '$tmp/solo.out'"
check "one process: the bad HSAQM_LOG said exactly once (said $(said "$tmp/solo.err") times)" \
  "[ $(said "$tmp/solo.err") -eq 1 ]"

# ---- 2: two processes, separate PID namespaces, one network namespace ----------------------
if ! unshare --pid --fork true 2>"$tmp/unshare.err"; then
  [ $fail -eq 0 ] || { echo "--- stderr"; cat "$tmp/solo.err"; exit 1; }
  echo "SKIP two PID namespaces: unshare --pid --fork is not permitted here (uid $(id -u)):" \
    "$(cat "$tmp/unshare.err")"
  exit 77
fi
unshare --pid --fork "$helper" "$tool" "$tmp" a b >"$tmp/a.out" 2>"$tmp/a.err" &
apid=$!
unshare --pid --fork "$helper" "$tool" "$tmp" b a >"$tmp/b.out" 2>"$tmp/b.err" &
bpid=$!
wait $apid; ast=$?
wait $bpid; bst=$?
# Each waits for the other's ready file before it exits: exit 0 means they overlapped.
check "two namespaces: both exit 0, each alive until the other had spoken ($ast, $bst)" \
  "[ $ast -eq 0 ] && [ $bst -eq 0 ]"
check "two namespaces: each is PID 1 of its own PID namespace" \
  "grep -q '^pid 1 ' '$tmp/a.out' && grep -q '^pid 1 ' '$tmp/b.out'"
here=$(readlink /proc/self/ns/net)
check "two namespaces: both in this one network namespace ($here)" \
  "grep -qF 'netns $here ' '$tmp/a.out' && grep -qF 'netns $here ' '$tmp/b.out'"
check "two namespaces: each said the bad HSAQM_LOG exactly once (a $(said "$tmp/a.err"), b $(said "$tmp/b.err"))" \
  "[ $(said "$tmp/a.err") -eq 1 ] && [ $(said "$tmp/b.err") -eq 1 ]"

if [ $fail -ne 0 ]; then
  for f in solo a b; do
    [ -f "$tmp/$f.err" ] && { echo "--- $f: stdout"; cat "$tmp/$f.out"; echo "--- $f: stderr"; cat "$tmp/$f.err"; }
  done
fi
exit $fail
