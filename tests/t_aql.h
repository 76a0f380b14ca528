/* SPDX-License-Identifier: MIT */
/*
 * t_aql.h - what the AQL tests (test-aql-*) compare packets with: a dispatch descriptor with
 * every field set, and a byte-by-byte comparison that says which byte differs. Header-only;
 * include once.
 */
#ifndef T_AQL_H
#define T_AQL_H

#include <stdint.h>
#include <stdio.h>

#include "hsaqm-hsa/aql.h"

/* Prints where two packet images first differ, so a failure says which field is wrong. */
static inline int t_packet_cmp(const char *what, const uint8_t *got, const uint8_t *want)
{
	for (unsigned int i = 0; i < HSAQM_AQL_PACKET_SIZE; i++) {
		if (got[i] != want[i]) {
			printf("\n%s: byte %u is 0x%02x, expected 0x%02x\n", what, i, got[i],
			       want[i]);
			return 1;
		}
	}
	return 0;
}

static const struct hsaqm_aql_dispatch_desc t_good_dispatch = {
	.dims = 3,
	.workgroup_size = { 0x40, 2, 1 },
	.grid_size = { 0x10000, 0x10, 3 },
	.private_segment_size = 0x100,
	.group_segment_size = 0x1000,
	.kernel_object = 0x1122334455667788ull,
	.kernarg_address = 0x00007f0012345640ull,
	.completion_signal = 0xabcdefull,
	.barrier = true,
	.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	.release_scope = HSAQM_AQL_FENCE_SCOPE_AGENT,
};

#endif /* T_AQL_H */
