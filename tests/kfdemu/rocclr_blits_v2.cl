// SPDX-License-Identifier: MIT
// Kernels with the names and argument lists of ROCclr's linear blit kernels in ROCm 6.4
// (libamdhip64 6.4.3): copyBuffer and fillBufferAligned take end pointers and strides.
// Bodies are not ROCclr's and never run (see rocclr_blits_v1.cl).
kernel void __amd_rocclr_copyBuffer(global uchar *src, global uchar *dst, ulong size,
				    uint remainder, uint aligned_size, ulong end_ptr,
				    uint next_chunk)
{
	dst[0] = src[0] + (uchar)(size + remainder + aligned_size + end_ptr + next_chunk);
}

kernel void __amd_rocclr_fillBufferAligned(global void *buf, constant uchar *pattern,
					   uint pattern_size, uint alignment, ulong end_ptr,
					   uint next_chunk)
{
	((global uchar *)buf)[0] = pattern[0] + (uchar)(pattern_size + alignment + end_ptr +
							next_chunk);
}
