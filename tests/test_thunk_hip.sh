#!/bin/sh
# Proof 3 of the libhsakmt face (docs/real-stack.md): a HIP program built here with Debian's
# hipcc for gfx90a (tests/thunk/hip_streams.hip) runs on Debian's libamdhip64 5.2.3 and ROCr
# over the device model: hipMalloc, hipMemcpy both ways with every byte checked, kernels on
# two streams created with the lowest and highest priorities, hipDeviceSynchronize, exit 0.
# The face's report shows which HSA queues ROCclr created and with which priorities, the SDMA
# queues ROCr's copies went through (bytes moved), and every kernel's dispatch and workgroup
# counts. A second run with ROCr's own HSA_ENABLE_SDMA=0 proves the blit-kernel copy path.
# $1: the face's folder; $2: the HIP program (empty when hipcc or libamdhip64 is missing);
# $3: the kernel table; $4: a scratch folder for reports.
# Exit 77 (skip) only when hipcc or libamdhip64 is not installed (packages: hipcc,
# libamdhip64-dev).
set -u
thunk_dir=$1
prog=$2
table=$3
work=$4
if [ -z "$prog" ] || [ ! -x "$prog" ]; then
	echo "SKIP: hipcc or libamdhip64 not installed (apt-get install hipcc libamdhip64-dev)"
	exit 77
fi
mkdir -p "$work"
out=$work/hip.out
rep=$work/hip.report

# A sanitizer build's face needs its runtimes first in the uninstrumented HIP program; leaks
# are checked by thunk-hsa-plain, whose program is instrumented.
. "$(dirname "$0")/thunk/t_thunk.sh"
t_thunk_preload "$thunk_dir"
t_thunk_no_leak_check "$thunk_dir"

fail=0
need() { # file, pattern, what
	if ! grep -q -E -- "$2" "$1"; then
		echo "FAIL: $3 (no line matching: $2)"
		fail=1
	fi
}
run() { # label, extra env assignment
	rm -f "$rep"
	status=0
	env $2 LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" HSAQM_THUNK_KERNELS="$table" \
		HSAQM_THUNK_REPORT="$rep" timeout 90 "$prog" >"$out" 2>&1 || status=$?
	echo "== $1: exit $status"
	cat "$out"
	if [ "$status" -ne 0 ]; then
		echo "FAIL: $1: the HIP program exited $status"
		fail=1
	fi
	if [ ! -f "$rep" ]; then
		echo "FAIL: $1: no report from the face"
		fail=1
		return
	fi
	echo "-- the face's report:"
	cat "$rep"
	need "$out" '^PASS$' "$1: the program's own checks"
	[ "$(grep -c ' 0 differ$' "$out")" -eq 4 ] || { echo "FAIL: $1: copies"; fail=1; }
	# ROCclr's two streams: queues created at normal priority, then moved to the lowest
	# (HSA -3, KFD 0) and the highest (HSA 3, KFD 15) by hsa_amd_queue_set_priority.
	need "$rep" '^queue-update id [0-9]+ priority -3 kfd_priority 0 ' "$1: a low-priority queue"
	need "$rep" '^queue-update id [0-9]+ priority 3 kfd_priority 15 ' "$1: a high-priority queue"
	need "$rep" '^kernel hsaqm_hip_low dispatches 6 workgroups 7680 ' "$1: low kernel counts"
	need "$rep" '^kernel hsaqm_hip_high dispatches 4 workgroups 16 ' "$1: high kernel counts"
	lat=$(awk '/^high-latency-us/ { if ($2 < 50 || $2 > 100000) bad++; n++ }
		END { print (n == 4 && !bad) ? "ok" : "bad" }' "$out")
	[ "$lat" = ok ] || { echo "FAIL: $1: high-priority latencies out of [50 us, 100 ms]"; fail=1; }
}

run "SDMA copies" ""
# ROCr's H2D and D2H copies went through the face's SDMA engines: 9 MiB each way, at least.
need "$rep" '^queue-create id [0-9]+ node 1 type sdma ' "SDMA queues created"
sdma=$(awk '/^sdma-queue/ { b += $7 } END { print b + 0 }' "$rep")
echo "bytes moved by SDMA: $sdma"
[ "$sdma" -ge 18000000 ] || { echo "FAIL: SDMA moved $sdma bytes, expected >= 18000000"; fail=1; }
if grep -q ' stopped$' "$rep"; then
	echo "FAIL: an SDMA engine met a packet it does not know"
	fail=1
fi

run "blit kernels (HSA_ENABLE_SDMA=0)" "HSA_ENABLE_SDMA=0"
if grep -q 'type sdma' "$rep"; then
	echo "FAIL: ROCr made SDMA queues with HSA_ENABLE_SDMA=0"
	fail=1
fi
blit=$(awk '/^kernel rocr-blit-copy/ { d += $4 } END { print d + 0 }' "$rep")
echo "ROCr blit-kernel copies: $blit dispatches"
[ "$blit" -ge 8 ] || { echo "FAIL: expected >= 8 blit-kernel copies, saw $blit"; fail=1; }

if [ "$fail" -ne 0 ]; then
	exit 1
fi
echo "PASS: HIP on the model: copies exact (SDMA and blit kernels), two priority streams"
exit 0
