#!/bin/sh
# Benchmark, not a test (docs/testing.md: speed targets are benchmarks): how late a real
# runtime's doorbell reaches the model through the emulated /dev/kfd (issue 25 item 2;
# docs/real-stack.md, "The doorbell's floor"). Three runs of tests/kfdemu/hsa_doorbell.c in a
# Debian root (default rocm-6.4) on the in-process emulation, each beside a run of
# hsaqm-bench-sim-clock (the in-process model, where a doorbell wakes the engine directly),
# whose "polling" 0.1 ms figure is the engine's own lateness. Model figures on this host.
# Usage: doorbell_latency_rocm.sh LIBKFDEMU HSAQM_BENCH_SIM_CLOCK WORKDIR [ROOT] [SAMPLES]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/rocm/t_root.sh
. "$src/tests/rocm/t_root.sh"
lib=$(t_abs "$1")
bench=$(t_abs "$2")
work=$3
root=${4:-rocm-6.4}
samples=${5:-60}
mkdir -p "$work"
work=$(cd "$work" && pwd)
t_root_binds "$(dirname "$lib")" "$work"
t_root_run -- sh -c 'cc=$(ls /usr/bin/clang-[0-9]* | grep -E "clang-[0-9]+$" | sort -V | tail -n 1)
	"$cc" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl -cl-std=CL2.0 -O2 "$1" -o "$2" &&
	exec "$cc" -O2 -o "$4" "$3" -lhsa-runtime64' sh \
	"$src/tools/probe/kernels/spin.cl" "$work/spin.co" "$src/tests/kfdemu/hsa_doorbell.c" \
	"$work/hsa_doorbell"
for i in 1 2 3; do
	echo "== run $i, load $(cut -d' ' -f1 /proc/loadavg): the emulated /dev/kfd (ROCr of $root)"
	t_root_run --env "LD_PRELOAD=$lib" --env HSAQM_LOG= -- \
		"$work/hsa_doorbell" "$work/spin.co" "$samples" 2>&1 | grep -v 'is timed, not run'
	echo "== run $i, load $(cut -d' ' -f1 /proc/loadavg): the in-process model (hsaqm-bench-sim-clock)"
	"$bench" "$samples" 2>&1 | grep -E '0\.1 ms|duration|load' || true
done
