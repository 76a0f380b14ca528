#!/bin/sh
# hsaqmctl top as a person sees it (issue 20 item 2): in a real terminal (tmux, driven with
# send-keys and read with capture-pane) it shows the processes, their queues and states, the
# preemptions per second and the hand-off P99; it redraws to the window's new size; `q` quits
# with exit status 0. Not in a terminal it writes plain frames without one escape sequence.
# Skipped (77) without tmux (scripts/ensure-deps installs it).
#
# Usage (meson passes the binaries): top-tmux.sh HSAQMD HSAQMCTL T-DCLIENT
set -eu
hsaqmd=$1 hsaqmctl=$2 dclient=$3
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed: skipped"; exit 77; }

# Memory, not disk, for the clients' output: a write to a file on a disk that something else
# fills can wait in the kernel's dirty-page throttling, and a client blocked writing never
# reads its next command.
tmpbase=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then tmpbase=/dev/shm; fi
dir=$(mktemp -d "$tmpbase/hsaqm-top-XXXXXX")
chmod 755 "$dir"
sock=$dir/hsaqmd.sock
tm="tmux -L hsaqm-top-$$ -f /dev/null"
pids=""
cleanup() {
  $tm kill-server 2>/dev/null || true
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- screen:"; cat "$dir/screen" 2>/dev/null || true
  for c in low high; do echo "--- $c client:"; cat "$dir/$c.out" 2>/dev/null || true; done
  echo "--- hsaqmctl list:"; "$hsaqmctl" --socket "$sock" list 2>&1 || true
  exit 1
}

"$hsaqmd" --socket "$sock" &
pids="$pids $!"
for i in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "hsaqmd did not listen"

# Two processes on one GPU, both ready: the one at 0 is held by the one at 10.
client() { # NAME PRIO: a t-dclient fed through a fifo kept open on fd 7 or 8
  mkfifo "$dir/$1.in"
  "$dclient" --socket "$sock" --priority "$2" <"$dir/$1.in" >"$dir/$1.out" &
  pids="$pids $!"
  echo $! >"$dir/$1.pid"
}
client low 0
exec 7>"$dir/low.in"
client high 10
exec 8>"$dir/high.in"
echo "add 9001" >&7; echo "ready 0" >&7
echo "add 9001" >&8; echo "ready 0" >&8
low=$(cat "$dir/low.pid")
# Held either way: preempted once the high queue is ready, or (when the low process's "add"
# is read after the high one's "ready": two processes, no order between them) created held.
held() { grep -q -e "ev preempt 0" -e "added 0 .* held=1" "$dir/low.out"; }
for i in $(seq 300); do held && break; sleep 0.1; done
held || fail "the low process was not held"

screen() { $tm capture-pane -p -t top >"$dir/screen"; }
wait_screen() { # PATTERN: up to 30 s (a loaded machine)
  for i in $(seq 300); do screen; grep -q -- "$1" "$dir/screen" && return 0; sleep 0.1; done
  return 1
}

# The exit status goes to a file: tmux's own #{pane_dead_status} is sometimes never filled in.
$tm new-session -d -s top -x 120 -y 30 "$hsaqmctl --socket $sock top; echo \$? > $dir/top.status"
$tm set-option -t top remain-on-exit on >/dev/null
wait_screen "hand-off" || fail "no frame"
wait_screen "PREEMPT/S" || fail "no table header"
grep -q "^$low " "$dir/screen" || fail "the low process ($low) is not listed"
grep -q "preempted" "$dir/screen" || fail "its queue is not shown preempted"
grep -q "P99" "$dir/screen" || fail "no hand-off P99"
echo "ok: a 120x30 frame lists both processes, the held queue preempted, the hand-off P99"

# A narrower window: redrawn to fit (SIGWINCH), no line longer than 60 columns.
$tm resize-window -t top -x 60 -y 20
sleep 1.5
screen
awk 'length($0) > 60 { bad = 1 } END { exit bad }' "$dir/screen" || fail "a line is wider than 60"
grep -q "hand-off" "$dir/screen" || fail "no frame after the resize"
echo "ok: resized to 60x20, every line fits"

# q quits, exit status 0.
$tm send-keys -t top q
for i in $(seq 100); do
  [ -s "$dir/top.status" ] && break
  sleep 0.1
done
[ -s "$dir/top.status" ] || fail "q did not quit"
st=$(cat "$dir/top.status")
[ "$st" = 0 ] || fail "top exited $st after q"
echo "ok: q quits, exit status 0"

# Not a terminal: plain frames, no escape sequence, colour or cursor control.
"$hsaqmctl" --socket "$sock" top 2 >"$dir/plain" </dev/null || fail "top 2 | file failed"
esc=$(printf '\033')
if grep -q "$esc" "$dir/plain"; then fail "an escape sequence in the plain output"; fi
[ "$(grep -c 'hand-off' "$dir/plain")" -ge 2 ] || fail "fewer than two frames in 2 s"
echo "ok: not a terminal: $(grep -c 'hand-off' "$dir/plain") plain frames, no escape sequence"
echo "top-tmux: 4 checks passed"
