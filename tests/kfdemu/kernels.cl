// SPDX-License-Identifier: MIT
// Kernels of the plain HSA test (tests/kfdemu/hsa_plain.c), built by each ROCm row's clang for
// its agent (tests/rocm/matrix.sh). They run on the device model, which does not execute their
// code: the emulated /dev/kfd finds each descriptor's name in the loaded code object and runs
// the model kernel of that name, whose per-workgroup duration comes from the test's kernel
// table (HSAQM_KFDEMU_KERNELS).
kernel void hsaqm_k_short(global int *out)
{
	out[0] = 1;
}

kernel void hsaqm_k_long(global int *out)
{
	out[1] = 2;
}
