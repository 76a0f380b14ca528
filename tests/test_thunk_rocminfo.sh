#!/bin/sh
# Proof 1 of the libhsakmt face (docs/real-stack.md): Debian's rocminfo 5.2.3, with the
# model's libhsakmt.so.1 first on LD_LIBRARY_PATH, initialises the real ROCr on the device
# model, lists the model's GPU agent and exits 0.
# $1: the folder holding the face's libhsakmt.so.1; $2: the rocminfo pre-flight shim.
# Exit 77 (skip) only when Debian's rocminfo is not installed (package: rocminfo).
set -u
thunk_dir=$1
shim=$2
if ! command -v rocminfo >/dev/null 2>&1; then
	echo "SKIP: rocminfo not installed (apt-get install rocminfo)"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# A sanitizer build's face needs its runtimes loaded first (ASan's first of all) in an
# uninstrumented rocminfo. Leak checking stays with thunk-hsa-plain, whose program is
# instrumented: here LeakSanitizer would report the uninstrumented ROCr's own allocations.
. "$(dirname "$0")/thunk/t_thunk.sh"
t_thunk_preload "$thunk_dir"
preload="$preload$shim"
if [ -n "${ASAN_OPTIONS+x}" ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
t_thunk_no_leak_check "$thunk_dir"

status=0
LD_LIBRARY_PATH="$thunk_dir" LD_PRELOAD="$preload" timeout 60 rocminfo >"$out" 2>&1 || status=$?
fail=0
check() {
	if ! grep -q -- "$1" "$out"; then
		echo "FAIL: rocminfo output lacks: $1"
		fail=1
	fi
}
if [ "$status" -ne 0 ]; then
	echo "FAIL: rocminfo exited $status"
	fail=1
fi
check 'Name: *gfx90a'
check 'Marketing Name: *AMD Instinct MI308X (hsaqm model, gfx90a face)'
check 'Device Type: *GPU'
check 'Compute Unit: *80'
check 'amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-'
check 'Segment: *GROUP'
check '\*\*\* Done \*\*\*'
# The system's libhsakmt must not have been the one loaded.
if grep -q 'ROCk module is NOT loaded' "$out"; then
	echo "FAIL: the pre-flight shim did not answer"
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	cat "$out"
	exit 1
fi
grep -E 'Name:|Marketing Name|Compute Unit|Device Type' "$out"
echo "PASS: rocminfo lists the model's agent and exits 0"
exit 0
