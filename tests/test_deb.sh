#!/bin/sh
# The Debian packages (debian/, docs/install.md): `dpkg-buildpackage -us -uc -b` builds
# libhsaqm0, libhsaqm-dev, hsaqm-tools, hsaqmd and python3-hsaqm from a clean copy of the source
# tree; lintian reports no error; installed with apt into a fresh copy of a plain Debian 12 root
# (scripts/debian-root bookworm, run on an overlay so the cached root stays clean), they work
# there: hsa-queue-probe produces its report on the device model (exit 3), `hsaqm-run -- true`
# exits 0 and names the packaged tool library, python3 imports hsaqm, hsaqmd starts from its
# unit's ExecStart and hsaqmctl reaches it, the man pages open.
# Usage: test_deb.sh SOURCE_ROOT WORK_DIR B_SANITIZE
# Skips (77) with the reason: sanitizer build, not root, packaging tools missing, or no root
# (Debian's package registry unreachable).
set -u
src=$1 work=$2 sanitize=$3
skip() { echo "SKIP: $*"; exit 77; }
[ "$sanitize" = none ] || skip "sanitizer build (b_sanitize=$sanitize): the packages are built" \
	"without instrumentation; the normal build runs this test"
[ "$(id -u)" -eq 0 ] || skip "not root (the Debian root is entered with unshare and chroot)"
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
for t in dpkg-buildpackage dpkg-checkbuilddeps lintian unshare; do
	command -v $t >/dev/null 2>&1 || skip "no $t (scripts/ensure-deps installs the packaging tools)"
done
why=$("$src/scripts/debian-root" why-not bookworm)
[ -z "$why" ] || skip "no bookworm root: $why"
if ! deps=$(cd "$src" && dpkg-checkbuilddeps 2>&1); then
	skip "build dependencies missing: $deps (scripts/ensure-deps installs them)"
fi

rm -rf "$work"
mkdir -p "$work/hsaqm"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

# A clean tree: what git tracks (and new files not ignored), never a build directory.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) | tar -xf - -C "$work/hsaqm"
else
	(cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$work/hsaqm"
fi
echo "dpkg-buildpackage -us -uc -b in $work/hsaqm (DEB_BUILD_OPTIONS=nocheck) ..."
t0=$(date +%s)
(cd "$work/hsaqm" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1
st=$?
[ $st -eq 0 ] || tail -n 30 "$work/build.log"
check "dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s)" "[ $st -eq 0 ]"
[ $st -eq 0 ] || exit 1
for p in libhsaqm0 libhsaqm-dev hsaqm-tools hsaqmd python3-hsaqm; do
	check "package $p built" "ls '$work'/${p}_*.deb >/dev/null 2>&1"
done
check "libhsaqm-dev carries hsaqm.pc and no hsaqm-dclient/daemon_client.h" \
	"dpkg-deb -c '$work'/libhsaqm-dev_*.deb | grep -q '/pkgconfig/hsaqm.pc' && ! dpkg-deb -c '$work'/libhsaqm-dev_*.deb | grep -q daemon_client.h"

lintian --fail-on error --tag-display-limit 0 "$work"/hsaqm_*.changes >"$work/lintian.log" 2>&1
st=$?
check "lintian: no error ($(grep -c '^E:' "$work/lintian.log") errors, $(grep -c '^W:' "$work/lintian.log") warnings)" \
	"[ $st -eq 0 ] && ! grep -q '^E:' '$work/lintian.log'"
grep -E '^[EW]:' "$work/lintian.log"

# ---- Installed into a fresh copy of a plain Debian 12 ----------------------------------------
"$src/scripts/debian-root" ensure bookworm >/dev/null || { echo "FAIL scripts/debian-root ensure bookworm"; exit 1; }
mkdir -p "$work/debs"
cp "$work"/*.deb "$work/debs/"
rm -f "$work"/debs/*-dbgsym_*.deb
cat >"$work/inside.sh" <<'EOF'
#!/bin/sh
# Runs inside the root: install the packages with apt (their dependencies come from Debian),
# then use them as a user would.
set -u
debs=$1 t=$2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >$t/apt.log 2>&1
st=$?
echo "apt-update $st"
[ $st -eq 0 ] || { tail -n 5 $t/apt.log; exit 0; }
apt-get install -y -q "$debs"/*.deb >>$t/apt.log 2>&1
st=$?
[ $st -eq 0 ] || tail -n 20 $t/apt.log
echo "apt-install $st"
hsa-queue-probe --quick --quiet >$t/probe.txt 2>&1
echo "probe $?"
grep -c -i 'model figure' $t/probe.txt | sed 's/^/probe-model-lines /'
hsaqm-run -- true
echo "run-true $?"
echo "run-tool $(hsaqm-run -- sh -c 'echo "$HSA_TOOLS_LIB"')"
echo "kfdemu $(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/hsaqm/libhsaqm-kfdemu.so cat /sys/class/kfd/kfd/topology/hsaqm_model 2>&1)"
echo "python $(cd / && python3 -c 'import hsaqm; print(hsaqm.library(), hsaqm.status())' 2>&1)"
unit=$(ls /lib/systemd/system/hsaqmd.service /usr/lib/systemd/system/hsaqmd.service 2>/dev/null | head -n 1)
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
echo "unit $unit $exec_start"
sock=$t/hsaqmd.sock
# The unit's command line, with a socket of the test's own.
# shellcheck disable=SC2086
$exec_start --socket $sock --ready-fd 3 3>$t/ready &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q ready $t/ready 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
hsaqmctl --socket $sock stats >$t/ctl.txt 2>&1
echo "hsaqmctl $?"
kill -TERM $pid
wait $pid
echo "hsaqmd-exit $?"
for m in hsaqm-run hsa-queue-probe hsaqmctl hsaqm-simd hsaqmd; do
	MANWIDTH=80 man "$m" 2>/dev/null | grep -q "^NAME" || echo "man-missing $m"
done
echo "man done"
EOF
chmod +x "$work/inside.sh"
"$src/scripts/debian-root" run bookworm --bind "$work" --overlay "$work/overlay" -- \
	/bin/sh "$work/inside.sh" "$work/debs" "$work" >"$work/inside.log" 2>&1
cat "$work/inside.log"
got() { sed -n "s/^$1 //p" "$work/inside.log" | head -n 1; }
[ "$(got apt-update)" = 0 ] || skip "apt-get update fails in the root: Debian's package registry" \
	"is not reachable (the packages' dependencies come from it)"
check "apt-get install ./*.deb in a fresh bookworm root" "[ '$(got apt-install)' = 0 ]"
check "hsa-queue-probe: a report on the device model (exit 3)" \
	"[ '$(got probe)' = 3 ] && [ '$(got probe-model-lines)' -gt 0 ]"
check "hsaqm-run -- true exits 0" "[ '$(got run-true)' = 0 ]"
check "hsaqm-run names the packaged tool library" \
	"[ '$(got run-tool)' = /usr/lib/x86_64-linux-gnu/hsaqm/libhsaqm-tool.so ]"
check "the packaged emulated /dev/kfd answers as the model" \
	"got kfdemu | grep -q '^emulated by libhsaqm-kfdemu'"
check "python3 imports hsaqm, which loads the packaged libhsaqm" \
	"[ '$(got python)' = '/usr/lib/x86_64-linux-gnu/libhsaqm.so.0 not loaded' ]"
check "the unit starts /usr/sbin/hsaqmd" "got unit | grep -q ' /usr/sbin/hsaqmd --foreground$'"
check "hsaqmd from the unit's command line serves hsaqmctl, stops on SIGTERM with 0" \
	"[ '$(got hsaqmctl)' = 0 ] && [ '$(got hsaqmd-exit)' = 0 ]"
check "man pages of the five programs" "! grep -q '^man-missing' '$work/inside.log'"

[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
