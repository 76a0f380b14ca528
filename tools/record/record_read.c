/* SPDX-License-Identifier: MIT */
/*
 * record_read.c - a recording's reader (record_read.h). The file is read whole: 256 MB at
 * most by default, 2.8 million records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "record_read.h"

/* @rc, with "PATH: WHY" in @err. */
static int fail(char *err, size_t len, int rc, const char *why, const char *path)
{
	if (err && len)
		snprintf(err, len, "%s: %s", path, why);
	return rc;
}

int hsaqm_record_file_read(const char *path, struct hsaqm_record_file *f, char *err,
			   size_t errlen)
{
	FILE *in;
	size_t cap = 0;
	uint64_t off;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	in = fopen(path, "rb");
	if (!in) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fread(&f->hdr, sizeof(f->hdr), 1, in) != 1 ||
	    memcmp(f->hdr.magic, HSAQM_REC_MAGIC, sizeof(f->hdr.magic))) {
		fclose(in);
		return fail(err, errlen, -EINVAL, "not an hsaqm recording (no HSAQMREC header)",
			    path);
	}
	if (f->hdr.version < 1 || f->hdr.version > HSAQM_REC_VERSION || f->hdr.header_size != HSAQM_REC_HEADER_SIZE ||
	    f->hdr.record_size != HSAQM_REC_RECORD_SIZE) {
		fclose(in);
		return fail(err, errlen, -ENOTSUP, "a recording of a format version this reader does "
			    "not know", path);
	}
	if (f->hdr.crc != hsaqm_rec_crc32(0, &f->hdr, offsetof(struct hsaqm_rec_file_header, crc))) {
		fclose(in);
		return fail(err, errlen, -EINVAL, "the recording's header does not check", path);
	}
	off = sizeof(f->hdr);
	for (;;) {
		struct hsaqm_rec_block b;
		size_t got = fread(&b, 1, sizeof(b), in);

		if (got == 0)
			break; /* the end, at a block boundary */
		if (got < sizeof(b) || b.magic != HSAQM_REC_BLOCK_MAGIC ||
		    b.bytes != (uint64_t)b.nrec * HSAQM_REC_RECORD_SIZE || b.seq != f->blocks) {
			f->torn = true;
			break;
		}
		if (f->nrecs + b.nrec > cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct hsaqm_rec_record *n;

			while (ncap < f->nrecs + b.nrec)
				ncap *= 2;
			n = realloc(f->recs, ncap * sizeof(*n));
			if (!n) {
				fclose(in);
				hsaqm_record_file_free(f);
				return fail(err, errlen, -ENOMEM, "out of memory", path);
			}
			f->recs = n;
			cap = ncap;
		}
		if (fread(f->recs + f->nrecs, HSAQM_REC_RECORD_SIZE, b.nrec, in) != b.nrec ||
		    hsaqm_rec_block_crc(&b, f->recs + f->nrecs) != b.crc) {
			f->torn = true;
			break;
		}
		f->nrecs += b.nrec;
		f->blocks++;
		off += sizeof(b) + b.bytes;
	}
	if (f->torn) {
		long end;

		fseek(in, 0, SEEK_END);
		end = ftell(in);
		f->torn_offset = off;
		f->torn_bytes = end > 0 && (uint64_t)end > off ? (uint64_t)end - off : 0;
	}
	fclose(in);
	return 0;
}

void hsaqm_record_file_free(struct hsaqm_record_file *f)
{
	free(f->recs);
	f->recs = NULL;
	f->nrecs = 0;
}

const char *hsaqm_record_kind_name(uint16_t kind)
{
	switch (kind) {
	case HSAQM_REC_QUEUE:
		return "queue";
	case HSAQM_REC_PACKET:
		return "packet";
	case HSAQM_REC_LOST:
		return "lost";
	case HSAQM_REC_QUEUE_GONE:
		return "queue_gone";
	case HSAQM_REC_LIMIT:
		return "limit";
	case HSAQM_REC_TIMES:
		return "times";
	case HSAQM_REC_CLOCK:
		return "clock";
	case HSAQM_REC_KERNEL:
		return "kernel";
	case HSAQM_REC_UNTIMED:
		return "untimed";
	default:
		return "?";
	}
}

const char *hsaqm_record_packet_kind(const struct hsaqm_rec_record *r)
{
	const union hsaqm_aql_packet pk = hsaqm_record_packet(r), *p = &pk;
	uint32_t type = p->dispatch.header & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH);

	switch (type) {
	case HSAQM_AQL_TYPE_KERNEL_DISPATCH:
		return "kernel_dispatch";
	case HSAQM_AQL_TYPE_BARRIER_AND:
		return "barrier_and";
	case HSAQM_AQL_TYPE_BARRIER_OR:
		return "barrier_or";
	case HSAQM_AQL_TYPE_AGENT_DISPATCH:
		return "agent_dispatch";
	case HSAQM_AQL_TYPE_VENDOR:
		return p->barrier_value.amd_format == HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE
			       ? "barrier_value"
			       : "vendor";
	default:
		return "invalid";
	}
}
