/* SPDX-License-Identifier: MIT */
/*
 * t_rocclr.h - an HSA client that submits exactly as ROCclr (HIP's runtime) does, through the
 * API table an HSA_TOOLS_LIB tool has wrapped (read from CLR's rocvirtual.cpp, for facts):
 *
 *   index = hsa_queue_add_write_index_screlease(q, 1);
 *   read  = hsa_queue_load_read_index_relaxed(q);
 *   while (index - hsa_queue_load_read_index_scacquire(q) >= q->size - 1) yield;
 *   copy the packet body into slot index & (size - 1);
 *   one 32-bit release store of header | setup << 16 into the slot's first word;
 *   hsa_signal_store_screlease(q->doorbell_signal, index);
 *
 * Several HIP streams may share one HSA queue (ROCclr pools them per priority), each from its
 * own thread: the reservation is what orders them. Header-only.
 */
#ifndef T_ROCCLR_H
#define T_ROCCLR_H

#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"

/*
 * Submit one packet image (its first word is the header | setup << 16 to publish). @fill,
 * when not NULL, is called with the reserved index before the header is published (a test
 * records the index in the kernel's arguments). Returns the index.
 */
static inline uint64_t t_rocclr_submit(const struct hsaqm_core_api_table *core,
				       struct hsaqm_hsa_queue *q, const union hsaqm_aql_packet *pkt,
				       void (*fill)(void *arg, uint64_t index), void *arg)
{
	const uint32_t mask = q->size - 1;
	uint64_t index = core->hsa_queue_add_write_index_screlease_fn(q, 1);
	union hsaqm_aql_packet *slot;

	(void)core->hsa_queue_load_read_index_relaxed_fn(q);
	/* ROCclr keeps one slot free (sw_queue_size = size - 1). */
	while (index - core->hsa_queue_load_read_index_scacquire_fn(q) >= mask)
		sched_yield();
	slot = (union hsaqm_aql_packet *)q->base_address + (index & mask);
	if (fill)
		fill(arg, index);
	memcpy(&slot->u32[1], &pkt->u32[1], sizeof(*slot) - sizeof(uint32_t));
	/* Release: the body above is visible to whoever sees the header (packet processor, proxy scan). */
	hsaqm_store_release(&slot->u32[0], pkt->u32[0]);
	core->hsa_signal_store_screlease_fn(q->doorbell_signal, (hsaqm_hsa_signal_value_t)index);
	return index;
}

#endif /* T_ROCCLR_H */
