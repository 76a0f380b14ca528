#!/bin/sh
# A recording through the real stack names every dispatch, times each, and replays them (issue 26
# items 1 and 3): in a Debian root (rocm-6.1, -6.4, -7.2), tests/replay/hip_names.hip, built with
# the root's own hipcc, runs under `hsaqm-run --record` on the device model through the emulated
# /dev/kfd (sim/kfdemu/). Asserted on the recording (hsaqm-record-dump):
#  - every kernel dispatch has a kernel_name (the tool learnt it when HIP froze the executable);
#  - per name, exactly the dispatches the program launched (and the emulation's own per-name
#    counts agree);
#  - with GPU_FORCE_QUEUE_PROFILING=1 (ROCclr signals every kernel) every kernel dispatch has a
#    times record; as HIP runs by default (ROCclr signals the barrier behind a stream's kernel
#    that a synchronisation waits on) every kernel has one all the same (the recorder's own
#    signal) and every signalled packet has one; start <= end;
# then `hsaqm-experiment --replay REC --configs native`: replay.json lists, per queue, the same
# kernels by name with the same dispatch counts recorded and replayed natively. Both cases.
#
#   record_names_rocm.sh ROOT BUILD_DIR OUT_DIR [PYTHON]
#
# Exit 0 pass, 1 fail (saying why), 77 when the root cannot be built or used here (the reason),
# or this is a sanitizer build (the roots' programs are not instrumented).
set -u
root=$1
build=$(cd "$2" && pwd)
work=$3
py=${4:-python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "${work:?}"/*
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
kfdemu=$build/sim/kfdemu/libhsaqm-kfdemu.so
run_tool=$build/tools/run/hsaqm-run
dump=$build/tools/record/hsaqm-record-dump
exp=$src/experiments/runner/hsaqm-experiment
[ -f "$kfdemu" ] || { echo "SKIP: no emulated /dev/kfd in this build (libhsa-runtime-dev, libdrm-dev)"; exit 77; }
if [ -c /dev/kfd ]; then
	echo "SKIP: a real /dev/kfd is present: this test runs on the device model only"
	exit 77
fi
command -v "$py" >/dev/null 2>&1 || { echo "SKIP: python3 not installed: hsaqm-experiment is a Python program"; exit 77; }
t_root_ready
t_root_uninstrumented "$kfdemu"
t_root_binds "$build" "$work"

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

if ! t_root_run -- hipcc --offload-arch=gfx942 -O2 -o "$work/hip_names" \
	"$src/tests/replay/hip_names.hip" >"$work/hipcc.log" 2>&1; then
	cat "$work/hipcc.log"
	echo "FAIL: the $root root's hipcc could not build tests/replay/hip_names.hip"
	exit 1
fi
table=$work/kernels.txt
printf '%s\n' "hsaqm_rec_alpha 20000" "hsaqm_rec_beta 50000" "hsaqm_rec_gamma 100000" > "$table"
check=$src/tests/replay/record_names_check.py

# record CASE [VAR=VALUE]...: the program recorded in $work/CASE/ with that environment, the
# recording checked and replayed (record_names_check.py says what each CASE must show).
record() {
	case_=$1
	shift
	d=$work/$case_
	mkdir -p "$d"
	rec=$d/names.rec
	rep=$d/emulation.report
	envs=
	for e in "$@"; do
		envs="$envs --env $e"
	done
	# shellcheck disable=SC2086 # $envs: one --env option per assignment
	t_root_run --env "LD_PRELOAD=$kfdemu" --env "HSAQM_KFDEMU_KERNELS=$table" \
		--env "HSAQM_KFDEMU_REPORT=$rep" --env HSAQM_LOG= $envs \
		-- timeout 240 "$run_tool" --daemon off --record "$rec" -- "$work/hip_names" \
		>"$d/run.out" 2>"$d/run.err"
	status=$?
	echo "== $case_ ($root $*): hsaqm-run --record -- hip_names: exit $status"
	cat "$d/run.out"
	if [ "$status" -ne 0 ] || ! grep -q '^PASS$' "$d/run.out"; then
		cat "$d/run.err"
		bad "$case_: the program did not pass under hsaqm-run --record"
		return
	fi
	if ! "$dump" "$rec" >"$d/dump.jsonl" 2>"$d/dump.err"; then
		cat "$d/dump.err"
		bad "$case_: hsaqm-record-dump could not read the recording"
		return
	fi
	awk '$1 == "launched" { print $2, $3 }' "$d/run.out" > "$d/launched.txt"
	awk '$1 == "kernel" { n[$2] += $4 } END { for (k in n) print k, n[k] }' "$rep" \
		> "$d/emulated.txt"
	"$py" "$check" recording "$case_" "$d/dump.jsonl" "$d/launched.txt" "$d/emulated.txt" ||
		fail=1
	# The replay: the same kernels, by name, as often natively as recorded.
	"$py" "$exp" --build "$build" --replay "$rec" --configs native --out "$d/replay" \
		--no-png --no-progress >"$d/replay.out" 2>&1
	status=$?
	if [ "$status" -ne 0 ]; then
		tail -n 30 "$d/replay.out"
		bad "$case_: hsaqm-experiment --replay exited $status"
		return
	fi
	"$py" "$check" replay "$case_" "$d/replay" "$d/launched.txt" || fail=1
}

# GPU_FORCE_QUEUE_PROFILING=1: ROCclr gives every kernel its own completion signal.
record profiled GPU_FORCE_QUEUE_PROFILING=1
# As HIP runs by default: a synchronisation's barrier is signalled, not the kernel before it.
record default
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
