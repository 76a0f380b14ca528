#!/bin/sh
# A kernel the emulated /dev/kfd does not perform must not look as if it ran (issue 25): in a
# Debian root's real ROCr, the emulation says on stderr, once per kernel name and with
# HSAQM_LOG silent, that a kernel's results are not computed, and its report marks the kernel
# "effect none: not computed, timing only"; a kernel it performs (the probe's spin kernel,
# ROCr's blit kernels) is said nowhere.
#  - tests/kfdemu/hsa_plain.c dispatches hsaqm_k_short and hsaqm_k_long (not performed) many
#    times each: exactly one line for each name, no other;
#  - tests/kfdemu/hsa_spin.c dispatches hsaqm_probe_spin (performed): no line.
# $1 libhsaqm-kfdemu.so; $2 a scratch folder; $3 the root (default rocm-6.4).
# Exit 77 when the root cannot be built here.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
lib=$(t_abs "$1")
work=$2
root=${3:-rocm-6.4}
mkdir -p "$work"
work=$(cd "$work" && pwd)

t_root_ready
t_root_uninstrumented "$lib"
t_root_binds "$(dirname "$lib")" "$work"

if ! t_root_run -- sh -c 'cc=$(ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E "clang-[0-9]+$" | sort -V | tail -n 1)
	[ -n "$cc" ] || exit 1
	for k in "$1" "$2"; do
		"$cc" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl -cl-std=CL2.0 -O2 \
			"$k" -o "$3/$(basename "$k" .cl).co" || exit 1
	done
	"$cc" -O1 -o "$3/hsa_plain" "$4" -lhsa-runtime64 &&
	exec "$cc" -O1 -o "$3/hsa_spin" "$5" -lhsa-runtime64' sh \
	"$src/tests/kfdemu/kernels.cl" "$src/tools/probe/kernels/spin.cl" "$work" \
	"$src/tests/kfdemu/hsa_plain.c" "$src/tests/kfdemu/hsa_spin.c" >"$work/clang.log" 2>&1; then
	cat "$work/clang.log"
	echo "FAIL: the root's clang could not build the programs"
	exit 1
fi
table=$work/kernels.txt
printf '%s\n' "hsaqm_k_short 20000" "hsaqm_k_long 3000000" > "$table"

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
notice='is timed, not run: its results are not computed'

run() { # name, program, arguments...
	name=$1
	shift
	rep=$work/$name.report
	rm -f "$rep"
	t_root_run --env "LD_PRELOAD=$lib" --env "HSAQM_KFDEMU_REPORT=$rep" \
		--env "HSAQM_KFDEMU_KERNELS=$table" --env HSAQM_LOG= -- timeout 240 "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
	status=$?
	echo "== $name: exit $status"
	cat "$work/$name.out"
	grep -F "$notice" "$work/$name.err"
	[ "$status" -eq 0 ] && grep -q '^PASS$' "$work/$name.out" || bad "$name: the program failed"
}

run plain "$work/hsa_plain" "$work/kernels.co"
# What it submitted: "dispatches short D W long D W".
set -- $(awk '/^dispatches short/ { print $3, $6 }' "$work/plain.out")
[ $# -eq 2 ] && [ "$1" -gt 1 ] && [ "$2" -gt 1 ] ||
	bad "hsa_plain did not dispatch each kernel more than once (${1:-?}, ${2:-?})"
for k in hsaqm_k_short hsaqm_k_long; do
	n=$(grep -cF "kernel $k $notice" "$work/plain.err")
	[ "$n" -eq 1 ] || bad "$k: $n notices on stderr, one expected"
	grep -qE "^kernel $k .* effect none: not computed, timing only$" "$work/plain.report" ||
		bad "$k: the report does not mark it: $(grep "^kernel $k " "$work/plain.report")"
done
n=$(grep -cF "$notice" "$work/plain.err")
[ "$n" -eq 2 ] || bad "hsa_plain: $n notices, two expected (ROCr's blit kernels are performed)"

run spin "$work/hsa_spin" "$work/spin.co"
n=$(grep -cF "$notice" "$work/spin.err")
[ "$n" -eq 0 ] || bad "hsa_spin: $n notices for a kernel the emulation performs"
grep -qE '^kernel hsaqm_probe_spin .* effect probe-spin performed [1-9]' "$work/spin.report" ||
	bad "hsa_spin: the report does not show the spin kernel performed"

[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
