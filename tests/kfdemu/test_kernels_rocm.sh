#!/bin/sh
# The kernels the emulated /dev/kfd performs, in a real ROCm (docs/real-stack.md, "Kernels the
# emulation performs"): inside a Debian root with ROCr/HIP (default rocm-6.4), in-process and
# on a shared hsaqm-simd,
#  - a HIP program (tests/kfdemu/hip_blits.hip) makes ROCclr run its blit kernels - a 256-byte
#    pageable copy, device-to-device copies, hipMemset, hipMemsetD32, hipMemcpy2D, hipMemset2D -
#    and checks every byte; the emulation's report must show each performed, none refused;
#  - an HSA program (tests/kfdemu/hsa_spin.c) runs the probe's spin kernel, built for the
#    presented gfx942 by the root's clang, twice: every value exact, and each dispatch's model
#    time iters x 17 ns plus a launch;
# then hsa-queue-probe runs its Lv3 check with that kernel: where a trial is conclusive its
# results must be exact (on a slow host the calibrated kernel may end before every stop: the
# probe then says "could not test", which is not a failure here).
# $1 libhsaqm-kfdemu.so; $2 hsa-queue-probe; $3 hsaqm-simd; $4 a scratch folder; $5 the root.
# Exit 77 when the root cannot be built here (no root user, no mmdebstrap, no registry).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
lib=$(t_abs "$1")
probe=$(t_abs "$2")
simd=$(t_abs "$3")
work=$4
root=${5:-rocm-6.4}
mkdir -p "$work"
work=$(cd "$work" && pwd)

t_root_ready
# What the root must see: the sources, the build tree(s) and the scratch folder.
t_root_binds "$(dirname "$lib")" "$(dirname "$probe")" "$work"

# A sanitizer build's library needs the sanitizer runtimes first, the root's own copies.
preload=
for so in $(ldd "$lib" | awk '/lib(a|ub)san/ { print $1 }' | sort); do
	if [ ! -e "$rootdir/usr/lib/x86_64-linux-gnu/$so" ] && [ ! -e "$rootdir/lib/x86_64-linux-gnu/$so" ]; then
		echo "SKIP: the $root root has no $so for this sanitizer build"
		exit 77
	fi
	preload="$preload$so:"
done
# On every run in the root (t_root_run).
root_env="--env ASAN_OPTIONS=detect_leaks=0 --env UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

prog=$work/hip_blits-$root
if [ ! -x "$prog" ] || [ "$src/tests/kfdemu/hip_blits.hip" -nt "$prog" ]; then
	if ! t_root_run -- hipcc --offload-arch=gfx942 -O2 -o "$prog" "$src/tests/kfdemu/hip_blits.hip" \
		>"$work/hipcc.log" 2>&1; then
		cat "$work/hipcc.log"
		echo "FAIL: hipcc could not build the HIP program in $root"
		exit 1
	fi
fi

# The probe's spin kernel for the presented GPU and the HSA program, by the root's clang (the
# build's may not know gfx942), as tools/probe/kernels/spin.cl's header says to build it.
kd=$work/kernels-$root
spin=$kd/spin-gfx942.hsaco
hsa_spin=$work/hsa_spin-$root
mkdir -p "$kd"
if ! t_root_run -- sh -c 'cc=$(ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E "clang-[0-9]+$" | sort -V | tail -n 1)
	[ -n "$cc" ] || exit 1
	"$cc" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl -cl-std=CL2.0 -O2 "$1" \
		-o "$2" && exec "$cc" -O2 -o "$4" "$3" -lhsa-runtime64' sh \
	"$src/tools/probe/kernels/spin.cl" "$spin" "$src/tests/kfdemu/hsa_spin.c" "$hsa_spin" \
	>"$work/clang.log" 2>&1; then
	cat "$work/clang.log"
	echo "FAIL: the root's clang could not build the spin kernel or the HSA program"
	exit 1
fi

# Each blit kernel the program used: performed at least once, never refused.
blits_ok() { # report, label
	for k in __amd_rocclr_copyBuffer __amd_rocclr_fillBufferAligned \
		__amd_rocclr_copyBufferRect __amd_rocclr_fillBufferAligned2D; do
		line=$(grep -E "^kernel $k(Aligned)? " "$1" | head -n 1)
		case "$line" in
		*" effect "*" refused 0") ;;
		*) bad "$2: $k not performed: ${line:-no report line}" ;;
		esac
		n=$(echo "$line" | sed -n 's/.* performed \([0-9]*\) .*/\1/p')
		[ "${n:-0}" -ge 1 ] || bad "$2: $k performed ${n:-0} times"
	done
}

run_blits() { # label, extra --env options
	label=$1
	shift
	rep=$work/blits-$root.report
	rm -f "$rep"
	t_root_run --env "LD_PRELOAD=$preload$lib" --env "HSAQM_KFDEMU_REPORT=$rep" "$@" -- \
		timeout 120 "$prog" >"$work/blits.out" 2>&1
	status=$?
	echo "== $label: exit $status"
	cat "$work/blits.out"
	[ "$status" -eq 0 ] || bad "$label: the HIP program exited $status"
	grep -q '^PASS$' "$work/blits.out" || bad "$label: the program's own checks"
	[ "$(grep -c ' 0 differ$' "$work/blits.out")" -eq 5 ] || bad "$label: not every check ran"
	if [ -f "$rep" ]; then
		grep -E '^(mode|kernel) ' "$rep"
		blits_ok "$rep" "$label"
	else
		bad "$label: no report from the emulation"
	fi
}

run_spin() { # label, extra --env options
	label=$1
	shift
	rep=$work/spin-$root.report
	rm -f "$rep"
	t_root_run --env "LD_PRELOAD=$preload$lib" --env "HSAQM_KFDEMU_REPORT=$rep" "$@" -- \
		timeout 120 "$hsa_spin" "$spin" >"$work/spin.out" 2>&1
	status=$?
	echo "== $label: exit $status"
	cat "$work/spin.out"
	[ "$status" -eq 0 ] || bad "$label: the HSA program exited $status"
	grep -q '^PASS$' "$work/spin.out" || bad "$label: the program's own checks"
	grep -E '^kernel hsaqm_probe_spin .* effect probe-spin performed 2 refused 0$' "$rep" ||
		bad "$label: the report does not show both dispatches performed"
}

run_blits "HIP blits in-process ($root)"
run_spin "the spin kernel in-process ($root)"

# Shared mode: no workgroup callbacks cross processes; effects happen at hand-over.
sock=$work/simd.sock
rm -f "$sock"
"$simd" -s "$sock" >"$work/simd.log" 2>&1 &
simd_pid=$!
t_wait_socket "$sock"
if [ -S "$sock" ] && [ -n "$preload" ] && t_root_run --env "LD_PRELOAD=$preload$lib" \
	--env "HSAQM_SIM_DEVICE=$sock" -- "$prog" 2>&1 | grep -q 'cannot attach.*Address already in use'; then
	# The device's memory must map at the same address in the client, where this sanitizer
	# build's runtime may already have put its shadow.
	echo "NOTE: shared mode not run: the sanitizer runtime holds the model memory's address"
elif [ -S "$sock" ]; then
	run_blits "HIP blits on hsaqm-simd ($root)" --env "HSAQM_SIM_DEVICE=$sock"
	grep -q '^mode shared' "$work/blits-$root.report" 2>/dev/null || bad "shared: not in shared mode"
	run_spin "the spin kernel on hsaqm-simd ($root)" --env "HSAQM_SIM_DEVICE=$sock"
else
	cat "$work/simd.log"
	bad "hsaqm-simd did not start"
fi
kill "$simd_pid" 2>/dev/null
wait "$simd_pid" 2>/dev/null

rep=$work/probe-$root.report
rm -f "$rep"
t_root_run --env "LD_PRELOAD=$preload$lib" --env "HSAQM_KFDEMU_REPORT=$rep" -- \
	timeout 300 "$probe" --quick --quiet --check lv3 --kernel-dir "$kd" >"$work/probe.out" 2>&1
status=$?
echo "== hsa-queue-probe --check lv3: exit $status"
grep -E 'Lv3|results:|kernel:' "$work/probe.out"
# 3: a report on the model: the probe knows the emulated /dev/kfd by its topology marker.
[ "$status" -eq 3 ] || bad "the probe exited $status (3 expected: model figures over the emulated /dev/kfd)"
grep -q '^  HSA runtime: ROCr ' "$work/probe.out" || bad "the probe does not name the real ROCr it ran"
grep -q 'MODEL FIGURES, NOT HARDWARE' "$work/probe.out" || bad "the probe's report is not labelled model figures"
if grep -q 'restart -> kernel done.* [0-9]\{8,\}\.[0-9]* s' "$work/probe.out"; then
	bad "a probe figure mixes clocks (restart -> kernel done is absurd)"
fi
res=$(sed -n 's/.*results: \([0-9]*\) of \([0-9]*\) trials ran to exact LCG results.*/\1 \2/p' \
	"$work/probe.out")
# shellcheck disable=SC2086 # two numbers
set -- $res
if [ $# -ne 2 ] || [ "$1" -ne "$2" ]; then
	bad "the probe's spin kernel results were not all exact (${res:-no results line})"
elif [ "$2" -eq 0 ]; then
	grep -q 'could not test: the spin kernel finished before every stop' "$work/probe.out" ||
		bad "the probe ran no trial, and not for its timing"
	echo "NOTE: no conclusive probe trial on this host (the kernel ended before every stop)"
fi
line=$(grep '^kernel hsaqm_probe_spin ' "$rep" 2>/dev/null)
echo "$line"
ns=$(echo "$line" | sed -n 's/.* duration_ns \([0-9]*\) effect probe-spin performed [1-9][0-9]* refused 0$/\1/p')
# Its length is iters x 17 ns (KFDEMU_SPIN_STEP_NS), the probe's calibrated iters >= 1024.
if [ -z "$ns" ] || [ $((ns % 17)) -ne 0 ] || [ "$ns" -lt $((1024 * 17)) ]; then
	bad "the probe kernel's report line: ${line:-none}"
fi

[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
