#!/bin/sh
# `meson install` gives what a user expects (docs/install.md): a fresh build of the source tree
# (prefix /usr/local, configured with Debian's python3) installed into a DESTDIR holds libhsaqm
# with its public headers and hsaqm.pc, and a consumer builds and runs from
# `pkg-config --cflags --libs hsaqm`; every function an installed header declares is exported
# by an installed library (no header without its library: hsaqm-dclient/daemon_client.h is not
# installed); the tool library is where the installed hsaqm-run looks, and with the build tree
# moved away hsaqm-run names it and a real HSA program on the model runs scheduled under it;
# the systemd unit starts the installed hsaqmd; the Python module lands in a directory the
# system python3 reads and loads the installed libhsaqm; each man page renders with `man -l`.
# Usage: test_install.sh SOURCE_ROOT WORK_DIR TOOL_CLIENT B_SANITIZE VERSION
# Skips (77) in a sanitizer build (it builds its own tree; the normal build runs it).
set -u
src=$1 work=$2 client=$3 sanitize=$4 version=$5
if [ "$sanitize" != none ]; then
	echo "SKIP: sanitizer build (b_sanitize=$sanitize): the test builds and installs its own" \
		"uninstrumented tree; the normal build runs it"
	exit 77
fi
# Debian's own python3 and tools, whatever the caller's PATH has first (a pyenv shim...).
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
py=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

build=$work/build
dest=$work/destdir
prefix=/usr/local
echo "building $src into $build (prefix $prefix) ..."
if ! meson setup "$build" "$src" --prefix=$prefix -Dbuildtype=plain -Dtests=disabled \
	>"$work/setup.log" 2>&1; then
	tail -n 20 "$work/setup.log"
	echo "FAIL meson setup"
	exit 1
fi
if ! meson compile -C "$build" >"$work/compile.log" 2>&1; then
	tail -n 20 "$work/compile.log"
	echo "FAIL meson compile"
	exit 1
fi
if ! meson install -C "$build" --destdir "$dest" --no-rebuild >"$work/install.log" 2>&1; then
	tail -n 20 "$work/install.log"
	echo "FAIL meson install"
	exit 1
fi
libdir=$prefix/$(meson introspect "$build" --buildoptions |
	$py -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"][0])')
D=$dest

# ---- The library, its headers, pkg-config -----------------------------------------------------
check "libhsaqm.so.0 and the libhsaqm.so link in $libdir" \
	"[ -f '$D$libdir/libhsaqm.so.0' ] && [ -L '$D$libdir/libhsaqm.so' ]"
check "public headers in $prefix/include/hsaqm" "[ -f '$D$prefix/include/hsaqm/hsaqm.h' ]"
# The installed headers are lib's public ones and nothing else: no part's interface
# (hsaqm-hsa/, hsaqm-dclient/, ...) nor common/'s (docs/style.md, "Layout").
check "only the four public headers are installed" \
	"[ \"\$(cd '$D$prefix/include' && find . ! -type d | sort | tr '\n' ' ')\" = \
	'./hsaqm/backend.h ./hsaqm/common.h ./hsaqm/hsaqm.h ./hsaqm/process.h ' ]"
check "hsaqm.pc in $libdir/pkgconfig" "[ -f '$D$libdir/pkgconfig/hsaqm.pc' ]"
export PKG_CONFIG_SYSROOT_DIR="$D" PKG_CONFIG_PATH="$D$libdir/pkgconfig"
pcflags=$(pkg-config --cflags --libs hsaqm)
check "pkg-config --cflags --libs hsaqm: $pcflags" "[ \$? -eq 0 ] && [ -n '$pcflags' ]"
headers=$(cd "$D$prefix/include" && find hsaqm -name '*.h' | sort)
{
	for h in $headers; do echo "#include <$h>"; done
	cat <<'EOF'
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct hsaqm_ctx *ctx = NULL;
	int rc = hsaqm_ctx_create(&ctx);

	printf("%s %d\n", hsaqm_version_string(), rc);
	if (!rc)
		hsaqm_ctx_destroy(ctx);
	return rc ? 1 : 0;
}
EOF
} >"$work/consumer.c"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror -o "$work/consumer" "$work/consumer.c" $pcflags 2>"$work/consumer.err"
check "a consumer including every installed header builds with pkg-config's flags" "[ \$? -eq 0 ]"
[ -s "$work/consumer.err" ] && cat "$work/consumer.err"
out=$(LD_LIBRARY_PATH="$D$libdir" "$work/consumer" 2>&1)
check "the consumer runs on the installed library: '$out'" "[ '$out' = '$version 0' ]"
# Every function an installed header declares (or calls from an inline body) must be defined
# by an installed shared library: a header without its library fails here.
# shellcheck disable=SC2086
declared=$(cc -E -P $(pkg-config --cflags hsaqm) "$work/consumer.c" |
	grep -oE '\bhsaqm_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u)
inline=$(cc -E -P $(pkg-config --cflags hsaqm) "$work/consumer.c" |
	sed -nE 's/^static inline .*\b(hsaqm_[a-z0-9_]+) *\(.*/\1/p' | sort -u)
exported=$(find "$D$prefix" -name '*.so*' -type f -exec nm -D --defined-only {} + 2>/dev/null |
	awk '{print $NF}' | sed 's/@.*//' | sort -u)
missing=
for f in $declared; do
	printf '%s\n' "$inline" | grep -qx "$f" && continue
	printf '%s\n' "$exported" | grep -qx "$f" || missing="$missing $f"
done
check "every function the installed headers declare is exported ($(echo $declared | wc -w) names)${missing:+; missing:$missing}" \
	"[ -z '$missing' ]"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH

# ---- hsaqm-run and the tool library, with the build tree moved away ---------------------------
tool=$D$libdir/hsaqm/libhsaqm-tool.so
check "the tool library in $libdir/hsaqm" "[ -f '$tool' ]"
check "the tool library finds libhsaqm.so.0 beside itself (RUNPATH \$ORIGIN/..)" \
	"readelf -d '$tool' | grep -q 'R.*PATH.*\\\$ORIGIN/\\.\\.'"
# The emulated /dev/kfd, for running a real ROCm on the model (docs/real-stack.md).
kfdemu=$D$libdir/hsaqm/libhsaqm-kfdemu.so
if [ -f "$build/sim/kfdemu/libhsaqm-kfdemu.so" ]; then
	marker=$(LD_PRELOAD=$kfdemu cat /sys/class/kfd/kfd/topology/hsaqm_model 2>&1)
	check "the emulated /dev/kfd in $libdir/hsaqm answers as the model: '$marker'" \
		"case '$marker' in 'emulated by libhsaqm-kfdemu'*) true ;; *) false ;; esac"
fi
mv "$build" "$build.moved"
run=$D$prefix/bin/hsaqm-run
env_out=$("$run" -- sh -c 'echo "$HSA_TOOLS_LIB"')
check "hsaqm-run -- true exits 0" "'$run' -- true"
check "the installed hsaqm-run names the installed tool library ($env_out)" \
	"[ '$env_out' = '$(readlink -f "$tool")' ]"
ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 "$run" -p high --stats "$work/stats.json" -- \
	"$client" 0 2 20 >"$work/client.out" 2>&1
st=$?
check "an HSA program on the model under it: exit 0, the tool active, its work done" \
	"[ $st -eq 0 ] && grep -q '^hsaqm: active: ' '$work/client.out' && grep -q '^done 2 queues x 20 dispatches' '$work/client.out'"
check "its stats file, written by the installed tool at exit" \
	"grep -q '\"priority\":50' '$work/stats.json'"
cp -a "$D" "$work/broken"
rm "$work/broken$libdir/hsaqm/libhsaqm-tool.so"
"$work/broken$prefix/bin/hsaqm-run" -- true 2>"$work/broken.err"
st=$?
check "without its tool library: exit 127 and one message naming where it looked" \
	"[ $st -eq 127 ] && [ \$(wc -l <'$work/broken.err') -eq 1 ] && grep -q 'libhsaqm-tool.so not found (looked at $work/broken' '$work/broken.err'"
rm -rf "$work/broken"

# ---- The systemd unit ---------------------------------------------------------------------------
unit=$D$prefix/lib/systemd/system/hsaqmd.service
check "hsaqmd.service in $prefix/lib/systemd/system" "[ -f '$unit' ]"
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
check "its ExecStart is the installed daemon ($exec_start)" \
	"[ '$exec_start' = '$prefix/sbin/hsaqmd' ] && [ -x '$D$exec_start' ]"
check "no @placeholder@ left in the unit" "! grep -q '@[A-Z]*@' '$unit'"

# ---- Python -----------------------------------------------------------------------------------
pymod=$(cd "$D" && find . -name hsaqm.py | sed 's|^\.||')
pydir=$(dirname "$pymod")
check "hsaqm.py in $pydir, a directory $py reads" \
	"[ -n '$pymod' ] && $py -c 'import sys; sys.exit(0 if \"$pydir\" in sys.path else 1)'"
pyout=$(cd / && PYTHONPATH="$D$pydir" $py -c \
	'import hsaqm; print(hsaqm.__file__); print(hsaqm.library()); print(hsaqm.status())' 2>&1)
py_file=$(printf '%s\n' "$pyout" | sed -n 1p)
py_lib=$(readlink -f "$(printf '%s\n' "$pyout" | sed -n 2p)")
py_status=$(printf '%s\n' "$pyout" | sed -n 3p)
check "import hsaqm with $py: the installed module, the installed libhsaqm, 'not loaded'" \
	"[ '$py_file' = '$D$pymod' ] && [ '$py_lib' = '$(readlink -f "$D$libdir/libhsaqm.so.0")' ] && [ '$py_status' = 'not loaded' ]"
[ $fail -eq 0 ] || printf '%s\n' "$pyout"

# ---- Man pages and documentation ----------------------------------------------------------------
if command -v man >/dev/null 2>&1; then
	for page in man1/hsaqm-run.1 man1/hsa-queue-probe.1 man1/hsaqmctl.1 man1/hsaqm-simd.1 man1/hsaqm-record-dump.1 man8/hsaqmd.8; do
		f=$D$prefix/share/man/$page
		name=$(basename "$page" | sed 's/\.[0-9]$//')
		text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>"$work/man.err")
		check "man -l $prefix/share/man/$page renders (NAME: $name, version $version), no warning" \
			"[ -f '$f' ] && printf '%s\n' \"\$text\" | grep -q '^ *$name ' && [ ! -s '$work/man.err' ] && grep -qF '\"hsaqm $version\"' '$f'"
	done
else
	echo "FAIL no man command (apt-get install man-db)"
	fail=1
fi
check "the user documentation in $prefix/share/doc/hsaqm" \
	"[ -f '$D$prefix/share/doc/hsaqm/README.md' ] && [ -f '$D$prefix/share/doc/hsaqm/install.md' ] && [ -f '$D$prefix/share/doc/hsaqm/tool.md' ]"

[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
