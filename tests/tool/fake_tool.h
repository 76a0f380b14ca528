/* SPDX-License-Identifier: MIT */
/* fake_tool.h - what the fake profiler (fake_tool.c) records, read by test_tool.c. */
#ifndef T_FAKE_TOOL_H
#define T_FAKE_TOOL_H

#include <stdint.h>

#include "hsaqm-hsa/hsa_abi.h"

#define FAKE_TOOL_MAX_QUEUES 64

struct fake_tool_record {
	uint32_t loads, unloads;
	uint64_t runtime_version;
	uint64_t failed_count;
	char first_failed[256];
	struct hsaqm_hsa_queue *created[FAKE_TOOL_MAX_QUEUES]; /* what its create returned */
	uint64_t created_doorbell[FAKE_TOOL_MAX_QUEUES];
	uint32_t ncreated;
	uint64_t destroys, destroy_known;
	uint64_t index_calls, index_known; /* calls, and calls on a queue its create returned */
	uint64_t stores, doorbell_stores;  /* stores, and stores to such a queue's doorbell */
};

typedef void (*fake_tool_get_fn)(struct fake_tool_record *out);

#endif /* T_FAKE_TOOL_H */
