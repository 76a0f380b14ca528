#!/bin/sh
# hsaqm at home on a ROCm machine (docs/install.md "Where ROCm is looked for"). In a throwaway
# copy of the rocm-5.2 root (Debian 12 with Debian's ROCm 5.2.3, scripts/debian-root), Debian's
# ROCm is laid out as AMD installs it: headers, ROCr, libhsakmt, HIP, comgr, rocminfo, hipcc and
# the device libraries moved to /opt/rocm-5.2.3, /opt/rocm linking there, its lib in ld.so.conf,
# its llvm/bin/clang the clang hipcc uses; nothing left in /usr/include/hsa or /usr/include/hip.
# There, as a user would:
#   - scripts/ensure-deps says it found the ROCm and asks for none of Debian's ROCm packages;
#   - meson configures hsaqm against /opt/rocm without being told, and its summary says so
#     (installation, HSA headers, libraries, the clang for the probe kernels);
#   - it builds, with /opt/rocm/include on the compile lines, and the tool tests pass against
#     it: the tool library on the model (tool-load, tool-proxy, tool-proof, tool-lv3, run-cli), the API-table
#     mirror against /opt/rocm's hsa_api_trace.h, and the ROCm matrix's host row (rocm-host):
#     the real ROCr, rocminfo and a hipcc-built HIP program from /opt/rocm on the model through
#     the emulated /dev/kfd, the last under hsaqm-run at Lv2 and Lv3.
# Usage: test_install_opt_rocm.sh SOURCE_ROOT WORK_DIR B_SANITIZE
# Skips (77) with the reason: sanitizer build, not root, no rocm-5.2 root, no package registry.
# Any clone passes: the checkout may sit where only its owner can enter (root's clone under
# /root, mode 700), which neither the unprivileged ensure-deps step nor the root's own /root
# (an empty tmpfs there) can reach. So the test works on a copy of the sources in a staging
# folder under /var/tmp that every user can read; WORK_DIR/stage names it while it lives, and it
# is kept (with every log) when a check fails.
set -u
orig=$1 meson_work=$2 sanitize=$3
skip() { echo "SKIP: $*"; exit 77; }
[ "$sanitize" = none ] || skip "sanitizer build (b_sanitize=$sanitize): the test builds its own" \
	"tree inside a Debian root; the normal build runs it"
[ "$(id -u)" -eq 0 ] || skip "not root (the Debian root is entered with unshare and chroot)"
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
why=$("$orig/scripts/debian-root" why-not rocm-5.2)
[ -z "$why" ] || skip "no rocm-5.2 root: $why"
"$orig/scripts/debian-root" ensure rocm-5.2 >/dev/null || { echo "FAIL scripts/debian-root ensure rocm-5.2"; exit 1; }

# The staging folder: the sources (without build trees and .git) and everything the test makes.
rm -rf "$meson_work"
mkdir -p "$meson_work" || { echo "FAIL cannot make $meson_work"; exit 1; }
work=$(mktemp -d /var/tmp/hsaqm-install-opt-rocm.XXXXXX) || { echo "FAIL mktemp under /var/tmp"; exit 1; }
chmod 755 "$work"
ln -s "$work" "$meson_work/stage"
# Gone on a pass or a skip; a failure (exit 1) keeps it for its logs.
trap 'rc=$?; [ $rc -eq 1 ] || rm -rf "$work" "$meson_work"' EXIT
src=$work/src
mkdir -m 755 "$src"
(cd "$orig" && tar --exclude='./build*' --exclude=./.git --exclude=./.cache -cf - .) |
	tar -C "$src" -xf - || { echo "FAIL copying $orig to $src"; exit 1; }
# Readable whatever the clone's modes were (its top folder 700, a umask 077 checkout).
chmod -R u+rwX,go+rX "$src"
echo "sources copied to $src (readable by every user, wherever the clone is)"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
inroot() {
	"$orig/scripts/debian-root" run rocm-5.2 --bind "$src" --bind "$work" --overlay "$work/overlay" \
		-- "$@"
}

# ---- The root: build tools, then Debian's ROCm moved to AMD's layout -------------------------
cat >"$work/setup.sh" <<'EOF'
#!/bin/sh
set -u
export DEBIAN_FRONTEND=noninteractive
tools="meson ninja-build gcc g++ libc6-dev libcunit1-dev python3 libdrm-dev"
if ! command -v meson >/dev/null 2>&1; then
	apt-get update -q >"$1/apt.log" 2>&1 || { echo "apt-update 1"; tail -n 5 "$1/apt.log"; exit 0; }
	echo "apt-update 0"
	apt-get install -y -q $tools >>"$1/apt.log" 2>&1 ||
		{ echo "apt-install 1"; tail -n 20 "$1/apt.log"; exit 0; }
fi
echo "apt-install 0"
set -e
p=/opt/rocm-5.2.3
a=/usr/lib/x86_64-linux-gnu
mkdir -p $p/include $p/lib/pkgconfig $p/bin $p/.info $p/amdgcn
mv /usr/include/hsa /usr/include/hip /usr/include/hsakmt.h /usr/include/hsakmttypes.h \
	/usr/include/amd_comgr.h $p/include/
for l in libhsa-runtime64 libhsakmt libamdhip64 libhiprtc-builtins libamd_comgr; do
	mv $a/$l.so* $p/lib/
done
sed -e "s|^prefix=.*|prefix=$p|" -e 's|^libdir=.*|libdir=${prefix}/lib|' \
	-e 's|^includedir=.*|includedir=${prefix}/include|' $a/pkgconfig/libhsakmt.pc >$p/lib/pkgconfig/libhsakmt.pc
rm $a/pkgconfig/libhsakmt.pc
for b in rocminfo rocm_agent_enumerator hipcc hipcc.pl hipconfig hipconfig.pl hipvars.pm \
	hip_embed_pch.sh hipcc_cmake_linker_helper; do
	mv /usr/bin/$b $p/bin/
done
mv $a/amdgcn/bitcode $p/amdgcn/
# Debian's hipcc uses clang-15: it is this ROCm's llvm.
ln -s /usr/lib/llvm-15 $p/llvm
echo 5.2.3 >$p/.info/version
ln -s rocm-5.2.3 /opt/rocm
# AMD's post-install step: the loader finds ROCm's libraries.
echo /opt/rocm/lib >/etc/ld.so.conf.d/10-rocm.conf
ldconfig
echo "relocated 0"
EOF
echo "preparing the root (build tools, ROCm moved to /opt/rocm) ..."
inroot /bin/sh "$work/setup.sh" "$work" >"$work/setup.log" 2>&1
got() { sed -n "s/^$1 //p" "$2" | head -n 1; }
[ "$(got apt-update "$work/setup.log")" != 1 ] || skip "apt-get update fails in the root: Debian's" \
	"package registry is not reachable (meson, gcc and CUnit come from it)"
check "build tools in the root" "[ '$(got apt-install "$work/setup.log")' = 0 ]"
check "Debian's ROCm moved to /opt/rocm-5.2.3" "[ '$(got relocated "$work/setup.log")' = 0 ]"
[ $fail -eq 0 ] || { cat "$work/setup.log"; exit 1; }

# ---- hsaqm built and tested there -------------------------------------------------------------
tests="tool-load tool-proxy tool-proof tool-lv3 run-cli api-table-abi rocm-host"
cat >"$work/build.sh" <<EOF
#!/bin/sh
set -u
# As AMD's install guide has it: ROCm's programs on PATH.
PATH=/opt/rocm/bin:\$PATH
export PATH
for d in /usr/include/hsa /usr/include/hip /usr/include/hsakmt.h; do
	[ -e \$d ] && echo "left-in-usr \$d"
done
echo "libhsa \$(ldconfig -p | sed -n 's/.*libhsa-runtime64.so.1 .*=> //p' | head -n 1)"
# ensure-deps as a user (it then only prints what it would install), from the staged copy a
# user can read, in a folder it can enter.
(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups sh "$src/scripts/ensure-deps") >"$work/deps.log" 2>&1
echo "deps-found \$(grep -c 'ROCm found at /opt/rocm' "$work/deps.log")"
echo "deps-rocm-missing \$(grep 'missing Debian packages' "$work/deps.log" | grep -c -E 'libhsa-runtime-dev|libhsakmt-dev|rocminfo|hipcc|libamdhip64-dev')"
cat "$work/deps.log"
meson setup "$work/build" "$src" >"$work/meson-setup.log" 2>&1
echo "setup \$?"
sed -n '/^  ROCm\$/,/^\$/p' "$work/meson-setup.log"
meson compile -C "$work/build" >"$work/compile.log" 2>&1
st=\$?
echo "compile \$st"
[ \$st -eq 0 ] || tail -n 20 "$work/compile.log"
echo "isystem \$(grep -c -- '-isystem /opt/rocm/include' "$work/build/compile_commands.json")"
meson test -C "$work/build" --no-rebuild $tests >"$work/meson-test.log" 2>&1
echo "test \$?"
grep -E '^ *[0-9]+/[0-9]+ ' "$work/meson-test.log"
# The matrix row built its programs with this ROCm's compilers (tests/rocm/matrix.sh).
echo "plain-rocr \$(ldd "$work/build/tests/host/bin/hsa_plain" | sed -n 's/.*libhsa-runtime64.so.1 => \([^ ]*\).*/\1/p')"
echo "hip-rocr \$(ldd "$work/build/tests/host/bin/hip_streams" | sed -n 's/.*libamdhip64.so.5 => \([^ ]*\).*/\1/p')"
cat "$work/build/tests/host/cells.txt" 2>/dev/null
EOF
echo "building hsaqm in the root and running the tool tests ..."
t0=$(date +%s)
inroot /bin/sh "$work/build.sh" >"$work/build.log" 2>&1
cat "$work/build.log"
b=$work/build.log
check "nothing of ROCm left in /usr/include" "! grep -q '^left-in-usr' '$b'"
check "the loader finds ROCr in /opt/rocm ($(got libhsa "$b"))" \
	"[ '$(got libhsa "$b")' = /opt/rocm/lib/libhsa-runtime64.so.1 ]"
check "scripts/ensure-deps says it found /opt/rocm and asks for no Debian ROCm package" \
	"[ '$(got deps-found "$b")' = 1 ] && [ '$(got deps-rocm-missing "$b")' = 0 ]"
check "meson setup with no option" "[ '$(got setup "$b")' = 0 ]"
check "summary: installation /opt/rocm -> /opt/rocm-5.2.3, version 5.2.3, from the default location" \
	"grep -q 'installation *: /opt/rocm (-> /opt/rocm-5.2.3), version 5.2.3, from default location' '$b'"
check "summary: HSA headers /opt/rocm/include/hsa" "grep -q 'HSA headers *: /opt/rocm/include/hsa' '$b'"
check "summary: libhsa-runtime64 and libhsakmt from /opt/rocm/lib" \
	"grep -q 'libhsa-runtime64 *: /opt/rocm/lib/libhsa-runtime64.so' '$b' && grep -q 'libhsakmt *: /opt/rocm/lib/libhsakmt.so' '$b'"
check "summary: the probe kernels' clang is /opt/rocm/llvm/bin/clang" \
	"grep -q 'clang for the probe kernels *: /opt/rocm/llvm/bin/clang (builds ' '$b'"
check "it builds ($(($(date +%s) - t0)) s with the tests below)" "[ '$(got compile "$b")' = 0 ]"
check "compile lines carry -isystem /opt/rocm/include" "[ '$(got isystem "$b")' -gt 0 ]"
check "the plain HSA program links /opt/rocm's ROCr" \
	"[ '$(got plain-rocr "$b")' = /opt/rocm/lib/libhsa-runtime64.so.1 ]"
check "the hipcc-built HIP program links /opt/rocm's HIP" \
	"[ '$(got hip-rocr "$b")' = /opt/rocm/lib/libamdhip64.so.5 ]"
for t in $tests; do
	check "meson test $t: OK (not skipped)" "grep -qE '^ *[0-9]+/[0-9]+ [^ ]* / $t +OK ' '$b'"
done
[ $fail -eq 0 ] || echo "the staging folder is kept: $work"
exit $fail
