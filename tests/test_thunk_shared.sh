#!/bin/sh
# The libhsakmt face on the shared device process (docs/real-stack.md, "Shared mode"): with
# HSAQM_SIM_DEVICE set, the real ROCr (and HIP) run on a separate hsaqm-simd that owns the
# model. The plain HSA program (thunk-hsa-plain's checks: timings, barriers, exact dispatch
# and workgroup counts) and, when hipcc and libamdhip64 are installed, the HIP program — once
# with the face's SDMA engines, once with ROCr's blit kernels (HSA_ENABLE_SDMA=0), whose
# copies the face performs when it hands the dispatch over, callbacks not crossing processes.
# The device process's trace must name the clients' kernels: it ran them.
# $1 hsaqm-simd; $2 the face's folder; $3 the plain HSA program; $4 its code object (empty:
# clang cannot build gfx90a); $5 its kernel table; $6 the HIP program (may be empty);
# $7 the HIP kernel table; $8 a scratch folder.
set -u
simd=$1
thunk_dir=$2
plain=$3
co=$4
plain_table=$5
hip=$6
hip_table=$7
work=$8
if [ -z "$co" ]; then
	echo "SKIP: clang cannot build the gfx90a code object"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
sock=$work/sim.sock
trace=$work/simd-trace.json

. "$(dirname "$0")/thunk/t_thunk.sh"
t_thunk_preload "$thunk_dir"

"$simd" -s "$sock" -T "$trace" >"$work/simd.log" 2>&1 &
simd_pid=$!
trap 'kill "$simd_pid" 2>/dev/null; wait "$simd_pid" 2>/dev/null' EXIT
i=0
until grep -q listening "$work/simd.log" 2>/dev/null; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$simd_pid" 2>/dev/null; then
		echo "FAIL: hsaqm-simd did not start"
		cat "$work/simd.log"
		exit 1
	fi
	sleep 0.1
done
export HSAQM_SIM_DEVICE="$sock"

fail=0
status=0
echo "== the plain HSA program on hsaqm-simd"
LD_LIBRARY_PATH="$thunk_dir" HSAQM_THUNK_KERNELS="$plain_table" \
	HSAQM_THUNK_REPORT="$work/plain.report" timeout 90 "$plain" "$co" || status=$?
[ "$status" -eq 0 ] || { echo "FAIL: the plain HSA program exited $status"; fail=1; }
grep -q '^mode shared' "$work/plain.report" ||
	{ echo "FAIL: the face was not in shared mode"; fail=1; }

if [ -n "$hip" ] && [ -x "$hip" ]; then
	t_thunk_no_leak_check "$thunk_dir"
	for sdma in 1 0; do
		rep=$work/hip-sdma$sdma.report
		status=0
		echo "== the HIP program on hsaqm-simd, HSA_ENABLE_SDMA=$sdma"
		HSA_ENABLE_SDMA=$sdma LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" \
			HSAQM_THUNK_KERNELS="$hip_table" HSAQM_THUNK_REPORT="$rep" \
			timeout 90 "$hip" >"$work/hip.out" 2>&1 || status=$?
		cat "$work/hip.out"
		cat "$rep"
		[ "$status" -eq 0 ] && grep -q '^PASS$' "$work/hip.out" ||
			{ echo "FAIL: HIP program, HSA_ENABLE_SDMA=$sdma: exit $status"; fail=1; }
		[ "$(grep -c ' 0 differ$' "$work/hip.out")" -eq 4 ] ||
			{ echo "FAIL: HIP copies, HSA_ENABLE_SDMA=$sdma"; fail=1; }
		grep -q '^kernel hsaqm_hip_low dispatches 6 workgroups 7680 ' "$rep" ||
			{ echo "FAIL: HIP low kernel counts"; fail=1; }
		if [ "$sdma" = 1 ]; then
			grep -q 'type sdma' "$rep" || { echo "FAIL: no SDMA queue"; fail=1; }
		else
			grep -q '^kernel rocr-blit-copy' "$rep" || { echo "FAIL: no blit kernel"; fail=1; }
		fi
	done
else
	echo "(no HIP program: hipcc or libamdhip64 missing; the plain HSA program alone)"
fi

# Stop the device process (ours: by its pid) so its trace is complete, then look for the
# clients' kernels in it.
kill "$simd_pid"
wait "$simd_pid"
trap - EXIT
grep -q 'hsaqm_k_short' "$trace" ||
	{ echo "FAIL: the device process's trace does not name hsaqm_k_short"; fail=1; }
if [ -n "$hip" ] && [ -x "$hip" ]; then
	grep -q 'hsaqm_hip_high' "$trace" ||
		{ echo "FAIL: the device process's trace does not name hsaqm_hip_high"; fail=1; }
fi
echo "device process trace: $(wc -c <"$trace") bytes"
[ "$fail" -eq 0 ] || exit 1
echo "PASS: ROCr (and HIP) through the face on the shared device process"
exit 0
