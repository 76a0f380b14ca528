#!/bin/sh
# samples/hip/priority_streams.hip: it compiles with hipcc, and, where the emulated /dev/kfd is
# built (this machine's ROCr and HIP over the model, docs/real-stack.md), it shows what
# docs/tool.md says it shows. The model times a kernel by its name (HSAQM_KFDEMU_KERNELS):
# offline_long workgroups take LONG ms, online_short ones 50 us. Model time (HIP events read
# the model's timestamps), medians of the sample's short kernels:
#   native          a short kernel waits for the long workgroups running when it comes (a
#                   uniformly spread remainder of one): median >= LONG / 4;
#   hsaqm-run lv2   within about one long kernel (two rounds of workgroups): median <= 3 LONG;
#   hsaqm-run lv3   at once, the long workgroups saved mid-kernel: median < LONG / 4, and
#                   below a quarter of native's.
# Skips (77) only for an absent optional dependency, named: hipcc not installed, hipcc unable to
# build any HIP program here (its device libraries), or the emulated /dev/kfd not built (its
# headers: libhsa-runtime-dev, libdrm-dev). The sample itself not building, or not showing
# what it should, is a failure.
# Usage: sample-hip.sh SOURCE_ROOT LIBHSAQM_KFDEMU|'' HSAQM_RUN|''
set -u
src=$1/samples/hip/priority_streams.hip
kfdemu=${2:-} run=${3:-}
hipcc=$(command -v hipcc) || { echo "SKIP: hipcc not installed (apt-get install hipcc)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# gfx942 (MI308X) needs a ROCm >= 5.7 clang; Debian's ROCm 5.2 clang knows gfx90a, which is what
# ROCr 5.2 makes of the model's gfx942 under libhsakmt's HSA_OVERRIDE_GFX_VERSION=9.0.10: the
# sample's source is the same for both.
built=
for arch in gfx90a gfx942; do
  if "$hipcc" -O2 --offload-arch=$arch -o "$tmp/priority_streams_$arch" "$src" >"$tmp/log.$arch" 2>&1; then
    echo "ok   samples/hip/priority_streams.hip compiles for $arch with $hipcc"
    built="$built $arch"
  fi
done
if [ -z "$built" ]; then
  # hipcc's own trouble (no device libraries for either target) or the sample's: a trivial
  # HIP program tells them apart.
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int *p) { *p = 1; }\nint main(void) { return 0; }\n' \
    >"$tmp/trivial.hip"
  for arch in gfx90a gfx942; do
    if "$hipcc" -O2 --offload-arch=$arch -o "$tmp/trivial" "$tmp/trivial.hip" >"$tmp/tlog" 2>&1; then
      echo "FAIL samples/hip/priority_streams.hip does not compile, though hipcc builds a HIP program for $arch:"
      sed 's/^/     | /' "$tmp/log.$arch" | head -n 20
      exit 1
    fi
  done
  echo "SKIP: hipcc ($hipcc) cannot build any HIP program here (its device libraries:" \
    "apt-get install rocm-device-libs): $(grep -m1 -i error "$tmp/tlog" || head -n1 "$tmp/tlog")"
  exit 77
fi
case "$built" in *gfx942*) arch=gfx942 ;; *gfx90a*) arch=gfx90a ;; esac
# The emulation runs the sample; without it, compiling is all this test could show.
if [ -z "$kfdemu" ] || [ ! -e "$kfdemu" ] || [ -z "$run" ]; then
  echo "SKIP: the emulated /dev/kfd (libhsaqm-kfdemu.so) is not built: meson found no" \
    "hsa/amd_hsa_signal.h or libdrm (apt-get install libhsa-runtime-dev libdrm-dev), so the" \
    "sample cannot run on the model"
  exit 77
fi

LONG_MS=10
printf 'offline_long %d\nonline_short 50000\n' $((LONG_MS * 1000000)) >"$tmp/kernels"
# A sanitizer build's emulation needs its runtimes first in the uninstrumented HIP program.
preload=
for rt in $(ldd "$kfdemu" | awk '/lib(a|ub|t)san/ {print $3}' | sort); do
  preload="$preload$rt:"
done
ldd "$kfdemu" | grep -q libasan && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
preload="$preload$kfdemu"
override=
[ "$arch" = gfx90a ] && override=HSA_OVERRIDE_GFX_VERSION=9.0.10
fail=0
median() { # label, command...
  label=$1
  shift
  env $override LD_PRELOAD="$preload" HSAQM_KFDEMU_KERNELS="$tmp/kernels" \
    timeout 120 "$@" "$tmp/priority_streams_$arch" $LONG_MS 20 >"$tmp/$label.out" 2>&1
  st=$?
  m=$(awk '/^short-latency-median-us/ {print $2}' "$tmp/$label.out")
  if [ $st -ne 0 ] || [ -z "$m" ]; then
    echo "FAIL $label: exit $st"
    sed 's/^/     | /' "$tmp/$label.out"
    fail=1
    m=-1
  fi
  echo "$m"
}
native=$(median native env)
lv2=$(median lv2 "$run" -l lv2 --)
lv3=$(median lv3 "$run" -l lv3 --)
long_us=$((LONG_MS * 1000))
echo "short kernels' median latency, model us (long workgroups ${LONG_MS} ms): native $native, lv2 $lv2, lv3 $lv3"
check() { if [ "$2" = 1 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
check "native: the short kernels wait for running long work (>= $((long_us / 4)) us)" \
  "$([ "$native" -ge $((long_us / 4)) ] && echo 1)"
check "lv2: they start within about one long kernel (<= $((3 * long_us)) us)" \
  "$([ "$lv2" -ge 0 ] && [ "$lv2" -le $((3 * long_us)) ] && echo 1)"
check "lv3: at once, the long kernel preempted mid-kernel (< $((long_us / 4)) us, < native / 4)" \
  "$([ "$lv3" -ge 0 ] && [ "$lv3" -lt $((long_us / 4)) ] && [ $((lv3 * 4)) -lt "$native" ] && echo 1)"
grep -q '^hsaqm: active: .*level lv3' "$tmp/lv3.out" || { echo "FAIL lv3: the tool was not active"; fail=1; }
exit $fail
