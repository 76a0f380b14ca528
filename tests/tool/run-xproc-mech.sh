#!/bin/sh
# The second Lv3 mechanism and the spatial fallback across processes (issue 19; docs/tool.md,
# "Lv3 mechanism and spatial"): real processes on one simulated GPU (hsaqm-simd), each under
# hsaqm-run with hsaqmd. The client's model registers its KFD face as the process's KFD, so the
# tool's Lv3 reaches the device process's KFD face. Wall-time delays are from the SIGKILL to the tool's own
# timestamp of the resume; latencies are model time.
#   A  a high process alone: its kernel latency (the standalone figure)
#   for each mode -- T: Lv3 with HSAQM_LV3_MECHANISM=dbg_trap; U: Lv3 with update_queue; S: Lv3
#   asked, no mechanism (HSAQM_LV3_MECHANISM=none): Lv2 with spatial auto:
#   D  SIGKILL of hsaqmd while it holds the low process: released by the hang-up, its work
#      completes; its exit stats name the mechanism (T: dbg_trap, U: update_queue, at lv3; S:
#      gate at lv2, confined at least once, not confined at the end)
#   E  SIGKILL of the high process while the low is held: released by the hang-up, completes
#   (D, E: the wall time is printed beside the 100 ms target; the check is that it came from the
#   hang-up, under 1 s, well before the 2 s heartbeat (D) or the hold-progress rule, set to 60 s here (E), could let go: a
#   100 ms wall-clock assertion measured the machine's load, 178 ms beside a load of 16)
# K  T, U: SIGKILL of the low process while its Lv3 mechanism holds its queue: the high process
#    runs on and completes; a high process afterwards runs at its standalone latency (the dead
#    queue left nothing stopped on the GPU).
# Usage: run-xproc-mech.sh HSAQM_RUN XPROC_CLIENT HSAQM_SIMD HSAQMD
set -u
run=$1 client=$2 simd=$3 hsaqmd=$4
T=1000          # low kernel length, us (model)
. "$(dirname "$0")/t_xproc.sh"
# Wall ms from $1 (ns) to the "released" line of $2.
released_ms() { tr=$(field "$2" released); awk "BEGIN{printf \"%.3f\", (${tr:-0} - $1) / 1e6}"; }

"$simd" -s "$tmp/sim.sock" >"$tmp/simd.out" 2>&1 &
pids="$pids $!"
wait_sock "$tmp/sim.sock" || { echo "FAIL hsaqm-simd did not start: $(cat "$tmp/simd.out")"; exit 1; }
export HSAQM_SIM_DEVICE="$tmp/sim.sock"
export HSAQM_LEVEL=lv3 HSAQM_LV2_INTERVAL=1 HSAQM_GPU_PROFILE=/nonexistent/hsaqm-gpu-profile
# hold_progress_ms out of reach: only the hang-up can release the low process within 1 s (E).
printf 'cap.default = 100\nsocket_mode = 0600\nhold_progress_ms = 60000\n' >"$tmp/hsaqmd.conf"
start_daemon() {
  "$hsaqmd" --socket "$tmp/d.sock" --config "$tmp/hsaqmd.conf" >>"$tmp/hsaqmd.out" 2>&1 &
  dpid=$!; pids="$pids $dpid"
  wait_sock "$tmp/d.sock"
}

# A: alone
"$run" -p high --daemon off -- "$client" high $T 9 20 >"$tmp/a.out" 2>"$tmp/a.err"
alone=$(field "$tmp/a.out" lat_median_us)
check "A: the high process runs alone (median ${alone:-?} us, model)" "[ -n '$alone' ]"

start_daemon || { echo "FAIL hsaqmd did not start: $(cat "$tmp/hsaqmd.out")"; exit 1; }
for m in T U S; do
  case $m in
  T) export HSAQM_LV3_MECHANISM=dbg_trap HSAQM_SPATIAL=off ;;
  U) export HSAQM_LV3_MECHANISM=update_queue HSAQM_SPATIAL=off ;;
  S) export HSAQM_LV3_MECHANISM=none HSAQM_SPATIAL=auto:250 ;;
  esac

  # D: SIGKILL of the daemon while it holds the low process
  "$run" -p low --daemon "$tmp/d.sock" --stats "$tmp/$m-d.stats.json" -- "$client" low $T 6 \
    >"$tmp/$m-d-low.out" 2>"$tmp/$m-d-low.err" &
  dl=$!; pids="$pids $dl"
  sleep 0.3
  "$run" -p high --daemon "$tmp/d.sock" -- "$client" busy 2 >"$tmp/$m-d-busy.out" 2>"$tmp/$m-d-busy.err" &
  db=$!; pids="$pids $db"
  if wait_line "$tmp/$m-d-low.out" '^held' 10; then
    sleep 0.2
    tk=$(now_ns); kill -9 $dpid
    wait_line "$tmp/$m-d-low.out" '^released' 5
    dms=$(released_ms "$tk" "$tmp/$m-d-low.out")
    echo "$m: SIGKILL hsaqmd -> the low process running again after $dms ms (wall)"
    check "$m D: daemon killed -> low released by the hang-up ($dms ms wall; target 100 ms)" \
      "awk 'BEGIN{exit !($dms >= -1 && $dms < 1000)}'"
    start_daemon
  else
    check "$m D: the daemon held the low process" false
  fi
  wait $db
  wait $dl; dlst=$?
  check "$m D: the low process's work completes" "[ $dlst -eq 0 ] && grep -q '^done' '$tmp/$m-d-low.out'"
  st="$tmp/$m-d.stats.json"
  if [ $m != S ]; then
    mech=$HSAQM_LV3_MECHANISM
    check "$m D: the low queue ran at lv3 with $mech (asked for)" \
      "grep -q '\"effective_level\":\"lv3\"' '$st' && grep -q '\"mechanism\":\"$mech\"' '$st' && grep -q '(asked for)' '$st'"
  else
    # (The exit stats are written while lib lets go: spatial is no longer in force there.)
    check "S D: the low queue ran at lv2 with the gate, spatial auto, and said why" \
      "grep -q '\"requested_level\":\"lv3\",\"effective_level\":\"lv2\"' '$st' && grep -q '\"mechanism\":\"gate\",\"mechanism_reason\":\"backend allows lv2: no Lv3 mechanism' '$st' && grep -q '\"spatial\":\"auto\"' '$st'"
    check "S D: confined while held, every CU back at the end" \
      "grep -q '\"confinements\":[1-9]' '$st' && grep -q '\"confined\":false' '$st' && ! grep -q '\"confined\":true' '$st'"
  fi

  # E: SIGKILL of the high process while the low is held
  "$run" -p low --daemon "$tmp/d.sock" -- "$client" low $T 4 >"$tmp/$m-e-low.out" 2>"$tmp/$m-e-low.err" &
  el=$!; pids="$pids $el"
  sleep 0.3
  "$run" -p high --daemon "$tmp/d.sock" -- "$client" busy 10 >"$tmp/$m-e-busy.out" 2>"$tmp/$m-e-busy.err" &
  eb=$!; pids="$pids $eb"
  if wait_line "$tmp/$m-e-low.out" '^held' 10; then
    sleep 0.3
    tk=$(now_ns); kill -9 $eb   # hsaqm-run execs the client: the pid is the client's
    wait_line "$tmp/$m-e-low.out" '^released' 5
    ems=$(released_ms "$tk" "$tmp/$m-e-low.out")
    echo "$m: SIGKILL of the high process -> the low process running again after $ems ms (wall)"
    check "$m E: high killed -> low released by the hang-up ($ems ms wall; target 100 ms)" \
      "awk 'BEGIN{exit !($ems >= -1 && $ems < 1000)}'"
  else
    check "$m E: the daemon held the low process" false
  fi
  wait $el; elst=$?
  check "$m E: the low process's work completes" "[ $elst -eq 0 ] && grep -q '^done' '$tmp/$m-e-low.out'"
done

# K: SIGKILL of the low process while its Lv3 mechanism holds its queue
for m in T U; do
  case $m in
  T) export HSAQM_LV3_MECHANISM=dbg_trap HSAQM_SPATIAL=off ;;
  U) export HSAQM_LV3_MECHANISM=update_queue HSAQM_SPATIAL=off ;;
  esac
  "$run" -p low --daemon "$tmp/d.sock" -- "$client" low $T 10 >"$tmp/$m-k-low.out" 2>"$tmp/$m-k-low.err" &
  kl=$!; pids="$pids $kl"
  sleep 0.3
  "$run" -p high --daemon "$tmp/d.sock" -- "$client" busy 2 >"$tmp/$m-k-busy.out" 2>"$tmp/$m-k-busy.err" &
  kb=$!; pids="$pids $kb"
  if wait_line "$tmp/$m-k-low.out" '^held' 10; then
    sleep 0.2
    kill -9 $kl
    wait $kb; kbst=$?
    check "$m K: low killed while $HSAQM_LV3_MECHANISM holds it -> the high process completes" \
      "[ $kbst -eq 0 ] && grep -q '^done' '$tmp/$m-k-busy.out'"
  else
    check "$m K: the daemon held the low process" false
    wait $kb
  fi
  wait $kl 2>/dev/null
  "$run" -p high --daemon "$tmp/d.sock" -- "$client" high $T 9 20 >"$tmp/$m-k.out" 2>"$tmp/$m-k.err"
  after=$(field "$tmp/$m-k.out" lat_median_us)
  echo "MODEL FIGURES: high kernel (20 us) latency alone ${alone:-?} us; after $m K ${after:-?} us (median)"
  check "$m K: afterwards a high process runs as alone (median ${after:-?} us <= alone + 0.5 T)" \
    "[ -n '$after' ] && awk 'BEGIN{exit !(${after:-1e9} <= ${alone:-0} + 0.5 * $T)}'"
done

if [ $fail -ne 0 ]; then
  for f in "$tmp"/*.out "$tmp"/*.err "$tmp"/*.json; do echo "== $f"; tail -c 3000 "$f"; echo; done
fi
exit $fail
