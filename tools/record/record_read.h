/* SPDX-License-Identifier: MIT */
/*
 * record_read.h - reading recordings (hsa-layer/tool/include/hsaqm-tool/record_format.h; docs/replay.md,
 * "Recording"): what hsaqm-record-dump prints and what a replay will read.
 */
#ifndef HSAQM_RECORD_READ_H
#define HSAQM_RECORD_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-tool/record_format.h"

/* A packet record's packet, copied out (an AQL packet is 64-byte aligned, a record's body not). */
static inline union hsaqm_aql_packet hsaqm_record_packet(const struct hsaqm_rec_record *r)
{
	union hsaqm_aql_packet p;

	memcpy(&p, r->body, sizeof(p));
	return p;
}

struct hsaqm_record_file {
	char path[4096];
	struct hsaqm_rec_file_header hdr;
	struct hsaqm_rec_record *recs; /* every record of every whole block, in file order */
	size_t nrecs;
	uint64_t blocks;               /* whole blocks read */
	bool torn;                     /* bytes after the last whole block did not form one */
	uint64_t torn_offset;          /* where they start (the file's usable length) */
	uint64_t torn_bytes;           /* how many */
};

/*
 * Read @path: its header must be a recording of a version this reader knows; then every
 * block up to the end, or up to the first block that is short or does not check (torn: a
 * process killed while writing, a disk full), which is not an error.
 * Returns 0; -ENOENT etc. (open); -EINVAL not a recording (or a corrupt header); -ENOTSUP a
 * version this reader does not know; -ENOMEM. @err receives a sentence on failure.
 */
int hsaqm_record_file_read(const char *path, struct hsaqm_record_file *f, char *err,
			   size_t errlen);
void hsaqm_record_file_free(struct hsaqm_record_file *f);

/* "queue", "packet" (see hsaqm_record_packet_kind), "lost", "queue_gone", "limit", "times",
 * "clock", "kernel", "?". */
const char *hsaqm_record_kind_name(uint16_t kind);
/* A packet record's AQL type: "kernel_dispatch", "barrier_and", "barrier_or",
 * "barrier_value" (AMD vendor), "agent_dispatch", "vendor", "invalid". */
const char *hsaqm_record_packet_kind(const struct hsaqm_rec_record *r);

#endif /* HSAQM_RECORD_READ_H */
