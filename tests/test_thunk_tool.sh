#!/bin/sh
# Proof 5 of the libhsakmt face (docs/real-stack.md): the HIP program of thunk-hip under
# hsaqm-run at level 3. hsaqm's tool library loads inside Debian's real ROCr 5.2.3
# (HSA_TOOLS_LIB), detects its API table layout, every HSA queue ROCclr creates through the
# table becomes a proxy (none passed through) with the stream's priority, and every kernel the
# program dispatched reaches the model (the face's exact counts). Lv3 works there: the tool's
# kfd-ioctl finds the model's KFD through the face's provider, ROCr's queues are KFD queues of
# it, so the stream queues stay at effective level 3 (no fallback) and the low stream's queue
# is preempted mid-kernel (DBG_TRAP suspend, CWSR in the model). Then the high-priority
# stream's latency (model time, HIP events) beats native: over TRIALS runs of each, the median
# under hsaqm-run is below half the native median (native waits for a running 2 ms low
# workgroup to finish; Lv3 saves it instead).
# $1 the face's folder; $2 the HIP program (empty: skip); $3 its kernel table; $4 hsaqm-run;
# $5 a scratch folder. Exit 77 only when hipcc or libamdhip64 is not installed.
set -u
thunk_dir=$1
prog=$2
table=$3
run=$4
work=$5
trials=${HSAQM_THUNK_TOOL_TRIALS:-3}
if [ -z "$prog" ] || [ ! -x "$prog" ]; then
	echo "SKIP: hipcc or libamdhip64 not installed (apt-get install hipcc libamdhip64-dev)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
. "$(dirname "$0")/thunk/t_thunk.sh"
t_thunk_preload "$thunk_dir"
t_thunk_no_leak_check "$thunk_dir"
fail=0
need() {
	grep -q -E -- "$2" "$1" || { echo "FAIL: $3 (no match for: $2)"; fail=1; }
}
# The tool's statistics, one queue object a line (its nested objects dropped): a field is
# looked for in the queue it belongs to, in whatever order the writer put the fields.
queues() {
	sed 's/"latency_ns":{[^}]*}//g; s/"daemon":{[^}]*}//g' "$1" | grep -o '{"name":"[^{}]*}'
}
need_queue() { # FILE HSA_PRIORITY WHAT PATTERN...
	f=$1 hp=$2 what=$3
	shift 3
	q=$(queues "$f" | grep "\"hsa_priority\":\"$hp\"")
	for pat; do
		printf '%s\n' "$q" | grep -q -E -- "$pat" ||
			{ echo "FAIL: $what (no match for: $pat)"; fail=1; }
	done
}
t=1
while [ "$t" -le "$trials" ]; do
	status=0
	LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" HSAQM_THUNK_KERNELS="$table" \
		HSAQM_THUNK_REPORT="$work/native$t.report" timeout 90 "$prog" \
		>"$work/native$t.out" 2>&1 || status=$?
	[ "$status" -eq 0 ] || { echo "FAIL: native run $t exited $status"; cat "$work/native$t.out"; fail=1; }
	status=0
	LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" HSAQM_THUNK_KERNELS="$table" \
		HSAQM_THUNK_REPORT="$work/tool$t.report" timeout 90 \
		"$run" -l 3 --stats "$work/stats$t.json" -- "$prog" >"$work/tool$t.out" 2>&1 ||
		status=$?
	if [ "$t" -eq 1 ]; then
		echo "== under hsaqm-run -l 3: exit $status"
		cat "$work/tool$t.out" "$work/tool$t.report"
		echo "-- the tool's statistics:"
		cat "$work/stats$t.json"
		echo
	fi
	[ "$status" -eq 0 ] && grep -q '^PASS$' "$work/tool$t.out" ||
		{ echo "FAIL: the HIP program under hsaqm-run (trial $t)"; cat "$work/tool$t.out"; fail=1; }
	s="$work/stats$t.json"
	need "$s" '"active":true' "the tool is active inside ROCr 5.2.3"
	need "$s" '"table_layout":"rocm-4.5-5.4"' "ROCr 5.2.3's table layout detected"
	need "$s" '"queues_created":3,"queues_passed_through":0' \
		"ROCclr's three queues are proxies, none passed through"
	need_queue "$s" high "the high stream's proxy, at effective level 3" '"priority":10,' \
		'"requested_level":"lv3"' '"effective_level":"lv3"'
	need_queue "$s" low "the low stream's proxy, at effective level 3 (Lv3 did not fall back)" \
		'"priority":-10,' '"requested_level":"lv3"' '"effective_level":"lv3"'
	need_queue "$s" low "the low stream's queue was preempted" '"preemptions":[1-9]'

	# Every dispatch the program made went through a proxy to the model, exactly once.
	need "$work/tool$t.report" '^kernel hsaqm_hip_low dispatches 6 workgroups 7680 ' "low kernel counts"
	need "$work/tool$t.report" '^kernel hsaqm_hip_high dispatches 4 workgroups 16 ' "high kernel counts"
	need "$work/tool$t.report" '^queue-create id [0-9]+ .* kfd_queue [0-9]+$' \
		"ROCr's queues are KFD queues of the model's KFD face"
	t=$((t + 1))
done
lat() { cat "$@" | awk '/^high-latency-us/ {print $2}'; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print -1}'; }
native_med=$(lat "$work"/native*.out | median)
tool_med=$(lat "$work"/tool*.out | median)
echo "high-priority stream latency, model us, $trials trials:"
echo "  native:          $(lat "$work"/native*.out | tr '\n' ' ')(median $native_med)"
echo "  hsaqm-run -l 3:  $(lat "$work"/tool*.out | tr '\n' ' ')(median $tool_med)"
if [ "$native_med" -lt 0 ] || [ "$tool_med" -lt 0 ] || [ $((tool_med * 2)) -ge "$native_med" ]; then
	echo "FAIL: the high stream's median latency under hsaqm-run -l 3 ($tool_med us) is not" \
		"below half the native median ($native_med us)"
	fail=1
fi
[ "$fail" -eq 0 ] || exit 1
echo "PASS: hsaqm's tool library inside the real ROCr carries every HIP dispatch; Lv3 on the" \
	"model's KFD beats native on the high stream's latency"
exit 0
