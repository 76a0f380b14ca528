#!/bin/sh
# Proof 4 of the libhsakmt face (docs/real-stack.md): the HIP program of thunk-hip under
# hsaqm-run. hsaqm's tool library loads inside Debian's real ROCr 5.2.3 (HSA_TOOLS_LIB),
# detects its API table layout, and every HSA queue ROCclr creates through the table becomes
# a proxy (none passed through) with the stream's priority; every kernel the program
# dispatched reaches the model (the face's exact counts). The high-priority stream's
# model-time latencies of the native and the hsaqm-run runs are printed side by side; they
# are not asserted to differ (docs/real-stack.md says why).
# $1 the face's folder; $2 the HIP program (empty: skip); $3 its kernel table; $4 hsaqm-run;
# $5 a scratch folder. Exit 77 only when hipcc or libamdhip64 is not installed.
set -u
thunk_dir=$1
prog=$2
table=$3
run=$4
work=$5
if [ -z "$prog" ] || [ ! -x "$prog" ]; then
	echo "SKIP: hipcc or libamdhip64 not installed (apt-get install hipcc libamdhip64-dev)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
preload=
for rt in $(ldd "$thunk_dir/libhsakmt.so.1" | awk '/lib(a|ub|t)san/ {print $3}' | sort); do
	preload="$preload$rt:"
done
if ldd "$thunk_dir/libhsakmt.so.1" | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
fail=0
status=0
LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" HSAQM_THUNK_KERNELS="$table" \
	HSAQM_THUNK_REPORT="$work/native.report" timeout 90 "$prog" >"$work/native.out" 2>&1 ||
	status=$?
[ "$status" -eq 0 ] || { echo "FAIL: native run exited $status"; cat "$work/native.out"; fail=1; }
status=0
LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" HSAQM_THUNK_KERNELS="$table" \
	HSAQM_THUNK_REPORT="$work/tool.report" timeout 90 \
	"$run" --stats "$work/stats.json" -- "$prog" >"$work/tool.out" 2>&1 || status=$?
echo "== under hsaqm-run: exit $status"
cat "$work/tool.out" "$work/tool.report"
echo "-- the tool's statistics:"
cat "$work/stats.json"
echo
[ "$status" -eq 0 ] && grep -q '^PASS$' "$work/tool.out" ||
	{ echo "FAIL: the HIP program under hsaqm-run"; fail=1; }
need() {
	grep -q -E -- "$2" "$1" || { echo "FAIL: $3 (no match for: $2)"; fail=1; }
}
need "$work/stats.json" '"active":true' "the tool is active inside ROCr 5.2.3"
need "$work/stats.json" '"table_layout":"rocm-4.5-5.4"' "ROCr 5.2.3's table layout detected"
need "$work/stats.json" '"queues_created":3,"queues_passed_through":0' \
	"ROCclr's three queues are proxies, none passed through"
need "$work/stats.json" '"hsa_priority":"high","priority":10' "the high stream's proxy"
need "$work/stats.json" '"hsa_priority":"low","priority":-10' "the low stream's proxy"
# Every dispatch the program made went through a proxy to the model, exactly once.
need "$work/tool.report" '^kernel hsaqm_hip_low dispatches 6 workgroups 7680 ' "low kernel counts"
need "$work/tool.report" '^kernel hsaqm_hip_high dispatches 4 workgroups 16 ' "high kernel counts"
echo "high-priority stream latency, model us: native $(awk '/^high-latency-us/ {printf "%s ", $2}' \
	"$work/native.out")| hsaqm-run $(awk '/^high-latency-us/ {printf "%s ", $2}' "$work/tool.out")"
[ "$fail" -eq 0 ] || exit 1
echo "PASS: hsaqm's tool library inside the real ROCr carries every HIP dispatch"
exit 0
