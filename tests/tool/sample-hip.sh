#!/bin/sh
# Compiles samples/hip/priority_streams.hip with hipcc when hipcc works (running it needs a
# real AMD GPU: docs/tool.md). Skips (77) with the reason otherwise.
# Usage: sample-hip.sh SOURCE_ROOT
set -u
src=$1/samples/hip/priority_streams.hip
hipcc=$(command -v hipcc) || { echo "SKIP: hipcc not installed (apt-get install hipcc)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# gfx942 (MI308X) needs a ROCm >= 5.7 clang; Debian's ROCm 5.2 clang knows gfx90a: the sample's
# source is the same for both, the build only proves it compiles.
for arch in gfx942 gfx90a; do
  if "$hipcc" -O2 --offload-arch=$arch -o "$tmp/priority_streams" "$src" >"$tmp/log" 2>&1; then
    echo "ok   samples/hip/priority_streams.hip compiles for $arch with $hipcc"
    exit 0
  fi
done
echo "SKIP: hipcc cannot build the sample here: $(grep -m1 -i error "$tmp/log" || head -n1 "$tmp/log")"
exit 77
