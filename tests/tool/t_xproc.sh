# Shared by the cross-process tool tests (run-xproc.sh, run-xproc-mech.sh), sourced after they
# set their arguments: a scratch folder removed with every process they started, the check
# printer, and the waits and field readers over their clients' line-oriented output.
tmp=$(mktemp -d) || exit 1
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
wait_sock() { i=0; while [ ! -S "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; [ -S "$1" ]; }
wait_line() { # FILE PATTERN SECONDS
  i=0; while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt $(($3 * 20)) ]; do sleep 0.05; i=$((i + 1)); done
  grep -q "$2" "$1" 2>/dev/null; }
field() { sed -n "s/^$2 \([0-9.]*\).*/\1/p" "$1" | tail -1; }
now_ns() { date +%s%N; }
