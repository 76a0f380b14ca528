// SPDX-License-Identifier: MIT
/*
 * cwsr.c - size of a compute queue's CWSR (compute wave save/restore) area.
 *
 * create_queue must be given exactly the node's ctl_stack_size and at least its cwsr_size, and
 * (kernels 6.12+) an area mapped on the GPU of (cwsr_size + debug_memory_size) x num_xcc bytes,
 * page-aligned; each XCC saves its waves into its own slice. The KFD computes these when it
 * builds the topology (kfd_queue.c); kernels from late 2025 also print cwsr_size and
 * ctl_stack_size in the node's properties, which then win over the formula here.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kfd_internal.h"
#include "hsaqm-common/log.h"

/* Per-CU register and memory state the CP saves (kfd_queue.c). */
#define SGPR_SIZE_PER_CU 0x4000u
#define LDS_SIZE_PER_CU 0x10000u
#define HWREG_SIZE_PER_CU 0x1000u
#define DEBUGGER_BYTES_PER_WAVE 32u
#define DEBUGGER_BYTES_ALIGN 64u
/* struct hsaqm_kfd_context_save_area_header, at the start of each XCC's control stack. */
#define CONTEXT_SAVE_AREA_HEADER_SIZE 40u
/* gfx10.0 hardware cannot use a larger control stack. */
#define GFX10_CTL_STACK_MAX 0x7000u

#define GFX_CARRIZO 80001u   /* first with CWSR */
#define GFX_TONGA 80002u
#define GFX_NAVI10 100100u   /* wave count and control stack entry change here */

static uint32_t vgpr_size_per_cu(uint32_t gfxv)
{
	/*
	 * Accumulation-VGPR parts (gfx908, gfx90a, gfx94x, gfx950) double the file. The KFD
	 * once matched the whole 9.4.x family and now only 90402; both agree on MI300.
	 */
	if (gfxv / 100 * 100 == 90400 || gfxv == 90010 || gfxv == 90008 || gfxv == 90500)
		return 0x80000;
	if (gfxv == 110000 || gfxv == 110001 || gfxv == 120000 || gfxv == 120001)
		return 0x60000;
	return 0x40000;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int hsaqm_cwsr_formula(uint32_t gfxv, uint32_t simd_count, uint32_t simd_per_cu, uint32_t num_xcc,
		       uint32_t array_count, uint32_t simd_arrays_per_engine,
		       uint32_t lds_size_in_kb, uint32_t page_size, struct hsaqm_cwsr_sizes *out)
{
	uint64_t wg_per_cu, wg, ctl, wave_num, cu;

	if (!out || !simd_count || !simd_per_cu || !num_xcc || !page_size ||
	    (page_size & (page_size - 1)))
		return -EINVAL;
	if (gfxv < GFX_CARRIZO)
		return -EOPNOTSUPP;
	cu = simd_count / simd_per_cu / num_xcc;
	if (!cu)
		return -EINVAL;
	if (gfxv < GFX_NAVI10) {
		uint64_t by_arrays;

		if (!simd_arrays_per_engine)
			return -EINVAL;
		by_arrays = (uint64_t)array_count / simd_arrays_per_engine * 512;
		wave_num = cu * 40 < by_arrays ? cu * 40 : by_arrays;
	} else {
		wave_num = cu * 32;
	}
	/* gfx950 saves the LDS size the node reports instead of a fixed 64 KiB. */
	wg_per_cu = (uint64_t)vgpr_size_per_cu(gfxv) + SGPR_SIZE_PER_CU +
		    (gfxv == 90500 ? (uint64_t)lds_size_in_kb << 10 : LDS_SIZE_PER_CU) +
		    HWREG_SIZE_PER_CU;
	wg = align_up(cu * wg_per_cu, page_size);
	ctl = wave_num * (gfxv >= GFX_NAVI10 ? 12 : 8) + 8;
	ctl = align_up(CONTEXT_SAVE_AREA_HEADER_SIZE + ctl, page_size);
	if (gfxv / 10000 * 10000 == 100000 && ctl > GFX10_CTL_STACK_MAX)
		ctl = GFX10_CTL_STACK_MAX;
	if (ctl + wg > UINT32_MAX)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->num_xcc = num_xcc;
	out->cu_per_xcc = (uint32_t)cu;
	out->wave_num = (uint32_t)wave_num;
	out->wg_data_size = (uint32_t)wg;
	out->ctl_stack_size = (uint32_t)ctl;
	out->cwsr_size = (uint32_t)(ctl + wg);
	out->debug_memory_size = (uint32_t)align_up(wave_num * DEBUGGER_BYTES_PER_WAVE,
						     DEBUGGER_BYTES_ALIGN);
	out->eop_buffer_size = gfxv == GFX_TONGA ? 0x8000 : 4096;
	out->total_size = align_up(((uint64_t)out->cwsr_size + out->debug_memory_size) * num_xcc,
				   page_size);
	out->from_sysfs = false;
	return 0;
}

int hsaqm_cwsr_sizes_get(const struct hsaqm_topology_node *node, struct hsaqm_cwsr_sizes *out)
{
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	if (!node || !out || !node->is_gpu)
		return -EINVAL;
	if (page <= 0)
		page = 4096;
	ret = hsaqm_cwsr_formula(node->gfx_target_version, node->simd_count, node->simd_per_cu,
				 node->num_xcc, node->array_count, node->simd_arrays_per_engine,
				 node->lds_size_in_kb, (uint32_t)page, out);
	if (ret)
		return ret;
	if (node->has_cwsr_size && node->has_ctl_stack_size) {
		/* The kernel's own numbers: create_queue compares against exactly these. */
		if (node->cwsr_size != out->cwsr_size ||
		    node->ctl_stack_size != out->ctl_stack_size)
			hsaqm_log_info("node %u: kernel CWSR sizes %u/%u differ from the formula's "
				       "%u/%u; using the kernel's",
				       node->node_id, node->cwsr_size, node->ctl_stack_size,
				       out->cwsr_size, out->ctl_stack_size);
		out->cwsr_size = node->cwsr_size;
		out->ctl_stack_size = node->ctl_stack_size;
		out->wg_data_size = node->cwsr_size > node->ctl_stack_size ?
					    node->cwsr_size - node->ctl_stack_size : 0;
		out->total_size = align_up(((uint64_t)out->cwsr_size + out->debug_memory_size) *
						   out->num_xcc,
					   (uint64_t)page);
		out->from_sysfs = true;
	}
	return 0;
}
