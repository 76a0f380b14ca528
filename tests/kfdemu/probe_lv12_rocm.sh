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
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
lib=$(t_abs "$1")
probe=$(t_abs "$2")
py=$3
work=$4
root=${5:-rocm-6.4}
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ -z "$py" ]; then
	echo "SKIP: no python3 to read the probe's JSON reports"
	exit 77
fi
t_root_ready
t_root_uninstrumented "$lib"
t_root_binds "$(dirname "$lib")" "$(dirname "$probe")" "$work"

# The probe's spin kernel for the presented gfx942, by the root's clang.
kd=$work/kernels-$root
t_root_spin "$kd"

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
	t_root_run --env "LD_PRELOAD=$lib" --env "HSAQM_KFDEMU_REPORT=$rep" --env HSAQM_LOG= -- \
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
