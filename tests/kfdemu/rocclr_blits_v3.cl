// SPDX-License-Identifier: MIT
// Kernels with the names and argument lists of ROCclr's linear blit kernels in ROCm 7.2
// (libamdhip64 7.2.4): the 6.4 lists plus workgroup_size. Bodies are not ROCclr's and never
// run (see rocclr_blits_v1.cl).
kernel void __amd_rocclr_copyBuffer(global uchar *src, global uchar *dst, ulong size,
				    uint remainder, uint aligned_size, ulong end_ptr,
				    uint next_chunk, uint workgroup_size)
{
	dst[0] = src[0] + (uchar)(size + remainder + aligned_size + end_ptr + next_chunk +
				  workgroup_size);
}

kernel void __amd_rocclr_fillBufferAligned(global void *buf, constant uchar *pattern,
					   uint pattern_size, uint alignment, ulong end_ptr,
					   uint next_chunk, uint workgroup_size)
{
	((global uchar *)buf)[0] = pattern[0] + (uchar)(pattern_size + alignment + end_ptr +
							next_chunk + workgroup_size);
}
