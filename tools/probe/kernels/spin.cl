// SPDX-License-Identifier: MIT
/*
 * The probe's spin kernel: each work-item runs `iters` steps of a 32-bit LCG from
 * seed ^ global id and stores the final state. The loop keeps a wave busy for as long as the
 * probe calibrates (a suspend then catches it mid-kernel), and its state lives in registers:
 * a wave whose registers were not saved and restored exactly by CWSR stores a wrong value,
 * which the host checks with a jump-ahead (tools/probe/kernels.c, probe_lcg_jump).
 *
 * No device library: the global id comes from the workgroup id and the workgroup size the
 * probe passes (struct probe_spin_args in probe_internal.h, same order).
 *
 * Build (meson does it for every target in -Dgpu_targets the clang knows):
 *   clang -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -x cl -cl-std=CL2.0 -O2 \
 *         spin.cl -o spin-gfx942.hsaco
 */
__kernel void hsaqm_probe_spin(__global uint *out, uint iters, uint seed, uint wg_size)
{
	uint gid = __builtin_amdgcn_workgroup_id_x() * wg_size + __builtin_amdgcn_workitem_id_x();
	uint x = seed ^ gid;

	for (uint i = 0; i < iters; i++)
		x = x * 1664525u + 1013904223u;
	out[gid] = x;
}
