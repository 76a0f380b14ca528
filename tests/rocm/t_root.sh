# Shared by the scripts that run real ROCm releases on the device model inside the Debian roots
# of scripts/debian-root (tests/rocm/matrix.sh, tests/deps/run.sh; the kfdemu scripts use only
# the last section, "One Debian root").
# matrix.sh and run.sh source it after setting:
#   where   host (this machine's own ROCm) or a root name (rocm-5.2, rocm-6.1, rocm-6.4, rocm-7.2)
#   src     the source tree, build  this build, out  the output folder (absolute paths)
#   cells   the cells file ("cell NAME PASS|FAIL|N/A DETAIL" lines)
# t_root_prepare then checks the emulation and the root (exit 77 with the reason when this row
# cannot run here, as matrix.sh does) and sets kfdemu, run_tool, simd, hsaqmd and preload.

# t_root_prepare: the build's emulation, no real GPU, an uninstrumented build for the roots, the
# root built. Exits 77 (the reason on stdout) or 1; returns when the row can run.
t_root_prepare() {
	kfdemu=$build/sim/kfdemu/libhsaqm-kfdemu.so
	run_tool=$build/tools/run/hsaqm-run
	simd=$build/tools/simd/hsaqm-simd
	hsaqmd=$build/tools/hsaqmd/hsaqmd
	[ -f "$kfdemu" ] || { echo "SKIP: no emulated /dev/kfd in this build (libhsa-runtime-dev, libdrm-dev)"; exit 77; }
	if [ -c /dev/kfd ]; then
		echo "SKIP: a real /dev/kfd is present: these tests run on the device model only"
		exit 77
	fi
	preload=$kfdemu
	if ldd "$kfdemu" | grep -q 'lib[aut]san'; then
		if [ "$where" != host ]; then
			echo "SKIP: the Debian roots' programs are not instrumented; their rows run in" \
			     "the normal build"
			exit 77
		fi
		_pre=
		for _rt in $(ldd "$kfdemu" | awk '/lib(a|ub|t)san/ {print $3}' | sort); do
			_pre="$_pre$_rt:"
		done
		preload="$_pre$kfdemu"
		export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
	fi
	if [ "$where" != host ]; then
		_why=$("$src/scripts/debian-root" why-not "$where")
		if [ -n "$_why" ]; then
			echo "SKIP: the $where root cannot be built or used here: $_why"
			exit 77
		fi
		if ! "$src/scripts/debian-root" ensure "$where" >/dev/null; then
			echo "FAIL: scripts/debian-root ensure $where"
			exit 1
		fi
	fi
}

# inroot LOG [K=V]... -- CMD...: CMD where this row runs (inside the root, or here for host),
# under `timeout ${T_ROOT_TIMEOUT:-240}`, its output to LOG; returns its exit status.
# (sh has no locals: its variables start with "_".)
inroot() {
	_log=$1
	shift
	_envs=
	while [ "$1" != -- ]; do
		_envs="$_envs $1"
		shift
	done
	shift
	if [ "$where" = host ]; then
		# shellcheck disable=SC2086
		env $_envs timeout "${T_ROOT_TIMEOUT:-240}" "$@" >"$_log" 2>&1
	else
		# The root's flags, "--", then the command (its first _n words now) at the end.
		_n=$#
		for _e in PATH=/usr/bin:/bin $_envs; do
			set -- "$@" --env "$_e"
		done
		set -- "$@" -- timeout "${T_ROOT_TIMEOUT:-240}"
		_k=0
		while [ "$_k" -lt "$_n" ]; do
			set -- "$@" "$1"
			shift
			_k=$((_k + 1))
		done
		_binds="--bind $src"
		case "$build" in "$src"/*) ;; *) _binds="$_binds --bind $build" ;; esac
		case "$out" in "$src"/*|"$build"/*) ;; *) _binds="$_binds --bind $out" ;; esac
		# shellcheck disable=SC2086
		"$src/scripts/debian-root" run "$where" $_binds "$@" >"$_log" 2>&1
	fi
}

cell() { # name status detail
	echo "cell $1 $2 $3" | tee -a "$cells"
}

# report_ok REPORT: the emulation wrote its report and knew every ioctl; else says why, 1.
report_ok() {
	if [ ! -s "$1" ]; then
		echo "no report from the emulation"
		return 1
	fi
	_u=$(awk '/^unknown-ioctls/ { n += $2 } END { print n + 0 }' "$1")
	if [ "$_u" -ne 0 ]; then
		echo "$_u ioctls the emulation does not know: $(grep '^unknown-ioctl ' "$1" | sort -u | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# kcounts REPORT: "NAME DISPATCHES" per kernel name, summed over the report's processes, sorted.
kcounts() {
	awk '$1 == "kernel" { d[$2] += $4 } END { for (k in d) print k, d[k] }' "$1" | sort
}

# t_root_arch: the agent this release sees. ROCr before 6.x knows no gfx942: libhsakmt's own
# HSA_OVERRIDE_GFX_VERSION=9.0.10 makes it a gfx90a so that it enumerates the model at all (not what
# a user of an MI308X should do: docs/real-stack.md). Sets arch
# and override ("" or 9.0.10); runs rocminfo with the env given as arguments.
t_root_arch() {
	arch=gfx942
	override=
	inroot "$out/runs/rocminfo.out" "$@" -- rocminfo
	if ! grep -qE '^ +Name: +gfx942 *$' "$out/runs/rocminfo.out"; then
		arch=gfx90a
		override=9.0.10
		inroot "$out/runs/rocminfo.out" "$@" HSA_OVERRIDE_GFX_VERSION=$override -- rocminfo
	fi
	grep -qE "^ +Name: +$arch *\$" "$out/runs/rocminfo.out"
}

# ==== One Debian root and the programs in it (tests/kfdemu/*_rocm.sh) ====
# Those scripts source this file for the setup they share, having set src (the source tree),
# root (a root name: rocm-6.4, ...) and, before t_root_ready, work (their scratch folder,
# absolute). They call none of the functions above.

# t_abs PATH: PATH made absolute (its folder must exist).
t_abs() {
	echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# t_root_ready: the root usable here and built; exits 77 saying why when not (the tail of the
# build's log, in $work/ensure.log). Sets rootdir, the root's tree.
t_root_ready() {
	_why=$("$src/scripts/debian-root" why-not "$root" 2>&1)
	if [ -n "$_why" ]; then
		echo "SKIP: the $root root is not available: $_why"
		exit 77
	fi
	if ! rootdir=$("$src/scripts/debian-root" ensure "$root" 2>"$work/ensure.log"); then
		tail -n 5 "$work/ensure.log"
		echo "SKIP: the $root root could not be built"
		exit 77
	fi
}

# t_root_uninstrumented LIB: exits 77 when LIB is a sanitizer build: the root's programs are not
# instrumented (as the matrix's root rows), so these run in the normal build only.
t_root_uninstrumented() {
	if ldd "$1" | grep -q 'lib[aut]san'; then
		echo "SKIP: the Debian roots' programs run in the normal build only"
		exit 77
	fi
}

# t_root_binds DIR...: sets binds, what the root must see: the sources and each DIR outside them.
t_root_binds() {
	binds="--bind $src"
	for _d in "$@"; do
		case "$_d/" in "$src"/*) ;; *) binds="$binds --bind $_d" ;; esac
	done
}

# t_root_run [OPTION]... -- CMD...: CMD in the root (scripts/debian-root run's options first),
# seeing $binds, with the options of $root_env (e.g. --env ...) on every run when set.
t_root_run() {
	# shellcheck disable=SC2086 # $binds and $root_env are lists of options
	"$src/scripts/debian-root" run "$root" $binds ${root_env:-} "$@"
}

# t_root_spin DIR: the probe's spin kernel for the presented gfx942, built by the root's clang (the
# build's may not know gfx942) into DIR/spin-gfx942.hsaco, as tools/probe/kernels/spin.cl's
# header says to build it; exits 1 saying why when it cannot.
t_root_spin() {
	mkdir -p "$1"
	# shellcheck disable=SC2016 # expanded in the root
	if ! t_root_run -- sh -c 'cc=$(ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E "clang-[0-9]+$" | sort -V | tail -n 1)
		[ -n "$cc" ] && exec "$cc" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl \
			-cl-std=CL2.0 -O2 "$1" -o "$2"' sh "$src/tools/probe/kernels/spin.cl" \
		"$1/spin-gfx942.hsaco" >"$work/clang.log" 2>&1; then
		cat "$work/clang.log"
		echo "FAIL: the root's clang could not build the spin kernel"
		exit 1
	fi
}

# t_wait_socket SOCK: true as soon as SOCK is a socket (a device process listening), false when it
# still is not after 30 s: where the caller gives up, never a measure.
t_wait_socket() {
	for _ in $(seq 1 300); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	[ -S "$1" ]
}
