/* SPDX-License-Identifier: MIT */
/* ring_internal.h - what the ring writer shows its tests and nobody else. */
#ifndef HSAQM_RING_INTERNAL_H
#define HSAQM_RING_INTERNAL_H

#include <stdint.h>

#include "hsaqm-hsa/ring.h"

/* The points inside hsaqm_ring_publish() a test may observe. */
enum hsaqm_ring_publish_stage {
	HSAQM_RING_STAGE_BODIES_WRITTEN = 0,   /* every body written, no header stored */
	HSAQM_RING_STAGE_TAIL_HEADERS_SET = 1, /* headers 1..n-1 stored, the first not yet */
};

/*
 * When non-NULL, hsaqm_ring_publish() calls it at each stage (stage is an enum
 * hsaqm_ring_publish_stage). It runs the same sequence (__hsaqm_ring_publish_seq) as the
 * submit paths, so a test can prove that the first header is stored last without racing a
 * thread against the writer. Set it only while no producer runs.
 */
extern void (*hsaqm_ring_publish_hook)(const struct hsaqm_ring *ring, uint64_t first, uint32_t n,
				       int stage);

#endif /* HSAQM_RING_INTERNAL_H */
