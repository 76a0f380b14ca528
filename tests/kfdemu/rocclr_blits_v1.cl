// SPDX-License-Identifier: MIT
// Kernels with the names and argument lists of ROCclr's blit kernels in ROCm 5.2 and 6.1
// (rocclr/device/blitcl.cpp; the lists as libamdhip64 5.2.3 and 5.7.1 carry them), plus the
// older fillBuffer. Their bodies are not ROCclr's and never run: test-kfdemu-kernels reads
// this code object's metadata as the emulated /dev/kfd reads ROCclr's, and checks what it
// performs for each list. Built by clang with -cl-kernel-arg-info, as ROCclr builds its own.
kernel void __amd_rocclr_copyBuffer(global uchar *srcI, global uchar *dstI, ulong srcOrigin,
				    ulong dstOrigin, ulong size, uint remain)
{
	dstI[dstOrigin] = srcI[srcOrigin] + (uchar)(size + remain);
}

kernel void __amd_rocclr_copyBufferAligned(global uint *src, global uint *dst, ulong srcOrigin,
					   ulong dstOrigin, ulong size, uint alignment)
{
	dst[dstOrigin] = src[srcOrigin] + (uint)size + alignment;
}

kernel void __amd_rocclr_copyBufferRect(global uchar *src, global uchar *dst, ulong4 srcRect,
					ulong4 dstRect, ulong4 size)
{
	dst[dstRect.z] = src[srcRect.z] + (uchar)size.x;
}

kernel void __amd_rocclr_copyBufferRectAligned(global uint *src, global uint *dst,
					       ulong4 srcRect, ulong4 dstRect, ulong4 size)
{
	dst[dstRect.z] = src[srcRect.z] + (uint)size.x;
}

kernel void __amd_rocclr_fillBuffer(global uchar *bufUChar, global uint *bufUInt,
				    constant uchar *pattern, uint patternSize, ulong offset,
				    ulong size)
{
	bufUChar[offset] = pattern[0] + (uchar)(patternSize + size);
	bufUInt[0] = 0;
}

kernel void __amd_rocclr_fillBufferAligned(global uchar *bufUChar, global ushort *bufUShort,
					   global uint *bufUInt, global ulong *bufULong,
					   constant uchar *pattern, uint patternSize, ulong offset,
					   ulong size)
{
	bufUChar[offset] = pattern[0] + (uchar)(patternSize + size);
	bufUShort[0] = 0;
	bufUInt[0] = 0;
	bufULong[0] = 0;
}

kernel void __amd_rocclr_fillBufferAligned2D(global uchar *bufUChar, global ushort *bufUShort,
					     global uint *bufUInt, global ulong *bufULong,
					     constant uchar *pattern, uint patternSize, ulong offset,
					     ulong width, ulong height, ulong pitch)
{
	bufUChar[offset] = pattern[0] + (uchar)(patternSize + width + height + pitch);
	bufUShort[0] = 0;
	bufUInt[0] = 0;
	bufULong[0] = 0;
}
