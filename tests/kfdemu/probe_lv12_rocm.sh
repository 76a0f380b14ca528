#!/bin/sh
# hsa-queue-probe's Lv1 and Lv2 checks on the users' real path (a real ROCr in a Debian root,
# the emulated /dev/kfd) give the verdicts they give on the in-process model: "supported".
# The emulation's CP front once read a guardian's gate signal when it first saw the packet, a
# ring ahead of the model, so a closed gate stopped nothing there ("not supported: up to 5
# kernels launched after the close") while the in-process model said supported. Lv2 runs with
# a guardian before every kernel (the default) and every 4 kernels.
# $1 libhsaqm-kfdemu.so; $2 hsa-queue-probe; $3 python3 ('' when absent); $4 a scratch
# folder; $5 the root (default rocm-6.4).
# Exit 77 when the root cannot be built here or python3 (to read the JSON reports) is absent.
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
lib=$(abs "$1")
probe=$(abs "$2")
py=$3
work=$4
root=${5:-rocm-6.4}
src=$(cd "$(dirname "$0")/../.." && pwd)
dr=$src/scripts/debian-root
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ -z "$py" ]; then
	echo "SKIP: no python3 to read the probe's JSON reports"
	exit 77
fi
why=$("$dr" why-not "$root" 2>&1)
if [ -n "$why" ]; then
	echo "SKIP: the $root root is not available: $why"
	exit 77
fi
if ! "$dr" ensure "$root" >/dev/null 2>"$work/ensure.log"; then
	tail -n 5 "$work/ensure.log"
	echo "SKIP: the $root root could not be built"
	exit 77
fi
if ldd "$lib" | grep -q 'lib[aut]san'; then
	# The root's programs are not instrumented (as the matrix's root rows).
	echo "SKIP: the Debian roots' programs run in the normal build only"
	exit 77
fi

binds="--bind $src"
for d in "$(dirname "$lib")" "$(dirname "$probe")" "$work"; do
	case "$d/" in "$src"/*) ;; *) binds="$binds --bind $d" ;; esac
done
# shellcheck disable=SC2086 # $binds is a list of options
inroot() {
	"$dr" run "$root" $binds "$@"
}

# The probe's spin kernel for the presented gfx942, by the root's clang.
kd=$work/kernels-$root
mkdir -p "$kd"
if ! inroot -- sh -c 'cc=$(ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E "clang-[0-9]+$" | sort -V | tail -n 1)
	[ -n "$cc" ] && exec "$cc" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl \
		-cl-std=CL2.0 -O2 "$1" -o "$2"' sh "$src/tools/probe/kernels/spin.cl" \
	"$kd/spin-gfx942.hsaco" >"$work/clang.log" 2>&1; then
	cat "$work/clang.log"
	echo "FAIL: the root's clang could not build the spin kernel"
	exit 1
fi

fail=0
# verdicts JSON -> "lv1=V lv2=V max_after=N trials=N"
verdicts() {
	"$py" - "$1" <<'EOF'
import json, sys
try:
    g = json.load(open(sys.argv[1]))["gpus"][0]["checks"]
except Exception as e:
    print("unreadable report: %s" % e)
    sys.exit(0)
after = [f["max"] for f in g["lv2"]["figures"] if f["name"] == "launched_after_close"]
print("lv1=%s lv2=%s max_after=%s trials=%s/%s" % (
    g["lv1"]["verdict"], g["lv2"]["verdict"], after[0] if after else "none",
    g["lv1"]["trials"], g["lv2"]["trials"]))
if g["lv2"]["verdict"] != "supported":
    print("lv2 reason: " + g["lv2"]["reason"])
if g["lv1"]["verdict"] != "supported":
    print("lv1 reason: " + g["lv1"]["reason"])
EOF
}

for interval in 1 4; do
	# The in-process model: the reference.
	HSAQM_LOG= "$probe" --sim --quick --quiet --check lv1,lv2 --lv2-interval "$interval" \
		--json >"$work/model-$interval.json" 2>"$work/model-$interval.err"
	want=$(verdicts "$work/model-$interval.json")
	rep=$work/probe-$interval.report
	rm -f "$rep"
	inroot --env "LD_PRELOAD=$lib" --env "HSAQM_KFDEMU_REPORT=$rep" --env HSAQM_LOG= -- \
		timeout 300 "$probe" --quick --quiet --check lv1,lv2 --lv2-interval "$interval" \
		--kernel-dir "$kd" --json >"$work/real-$interval.json" 2>"$work/real-$interval.err"
	status=$?
	got=$(verdicts "$work/real-$interval.json")
	echo "interval $interval: in-process model: $want"
	echo "interval $interval: $root on the emulated /dev/kfd (exit $status): $got"
	[ "$status" -eq 3 ] || { fail=1; echo "FAIL: the probe exited $status (3: a model report)"; tail -n 3 "$work/real-$interval.err"; }
	case "$want" in
	"lv1=supported lv2=supported "*) ;;
	*) fail=1; echo "FAIL: the in-process model's verdicts are not both supported" ;;
	esac
	# The verdicts must agree; the figures are the runtime's (ROCr's waits, the host's timing).
	if [ "${want%% max_after*}" != "${got%% max_after*}" ]; then
		fail=1
		echo "FAIL: the real path's verdicts differ from the in-process model's"
	fi
	grep -q '^unknown-ioctls 0$' "$rep" 2>/dev/null || { fail=1; echo "FAIL: the emulation's report: $(grep '^unknown-ioctls' "$rep" 2>/dev/null || echo none)"; }
done
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
