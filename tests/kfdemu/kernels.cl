// SPDX-License-Identifier: MIT
// Kernels of the plain HSA test (tests/thunk/hsa_plain.c), built for gfx90a by clang. They
// run on the device model, which does not execute their code: the libhsakmt face finds each
// descriptor's name in the loaded code object and runs the model kernel of that name, whose
// per-workgroup duration comes from the test's kernel table.
kernel void hsaqm_k_short(global int *out)
{
	out[0] = 1;
}

kernel void hsaqm_k_long(global int *out)
{
	out[1] = 2;
}
