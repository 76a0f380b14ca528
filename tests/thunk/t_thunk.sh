# SPDX-License-Identifier: MIT
# t_thunk.sh - sourced by the scripts that run an uninstrumented program (Debian's ROCr, HIP,
# rocminfo) on the model's libhsakmt face (tests/test_thunk_*.sh, tests/tool/sample-hip.sh).

# t_thunk_preload THUNK_DIR: $preload becomes the sanitizer runtimes a sanitizer build's face
# needs loaded first in an uninstrumented program ("" in a normal build; each ends with ':').
t_thunk_preload() {
	preload=
	for rt in $(ldd "$1/libhsakmt.so.1" | awk '/lib(a|ub|t)san/ {print $3}' | sort); do
		preload="$preload$rt:"
	done
}

# t_thunk_no_leak_check THUNK_DIR: with an ASan-instrumented face, LeakSanitizer off for what
# runs next: it would report the uninstrumented runtime's own allocations (thunk-hsa-plain,
# whose program is instrumented, checks leaks).
t_thunk_no_leak_check() {
	if ldd "$1/libhsakmt.so.1" | grep -q libasan; then
		export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
	fi
}
