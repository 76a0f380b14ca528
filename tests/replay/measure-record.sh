#!/bin/sh
# SPDX-License-Identifier: MIT
# Not a test: the measurement docs/replay.md ("Cost and size") quotes. What recording costs on
# W1 light (one hsaqm-wl process running both tasks; hsaqm-simd at time scale 1), three times
# with and without hsaqm-run --record: wall and CPU time of the process (the writer thread is in
# it), the file's size, dispatches and timed dispatches. MODEL FIGURES.
# Usage (from the source root, after meson compile): sh tests/replay/measure-record.sh [BUILD]
B=${1:-build}; T=$(mktemp -d)
$B/tools/simd/hsaqm-simd --socket $T/s.sock --time-scale 1 >/dev/null 2>&1 & S=$!
sleep 0.5
for i in 1 2 3; do
  for mode in rec norec; do
    rm -f $T/r.rec
    if [ $mode = rec ]; then opt="--record $T/r.rec"; else opt=""; fi
    HSAQM_SIM_DEVICE=$T/s.sock /usr/bin/time -f "%e %U %S" -o $T/time $B/tools/run/hsaqm-run $opt -- \
      $B/experiments/runner/hsaqm-wl experiments/workloads/w1-light.wl --config native --length 4s --out $T/o.json --quiet 2>/dev/null
    read e u s < $T/time
    if [ $mode = rec ]; then
      sz=$(stat -c %s $T/r.rec)
      n=$($B/tools/record/hsaqm-record-dump $T/r.rec | grep -c kernel_dispatch)
      tm=$($B/tools/record/hsaqm-record-dump $T/r.rec | grep -c '"kind":"times"')
      echo "run $i recording: wall $e s, cpu user $u sys $s; file $sz B, $n dispatches, $tm timed: $(echo "$sz / $e / 1048576" | bc -l | cut -c1-5) MiB/s, $(echo "$sz / $n" | bc) B per dispatch"
    else
      echo "run $i without:   wall $e s, cpu user $u sys $s"
    fi
  done
done
kill $S; rm -rf $T
