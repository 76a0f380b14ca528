/* SPDX-License-Identifier: MIT */
/*
 * t_record.h - what the recorder's tests share: a recording's records found by kind, queue
 * and index (the reader of tools/record/, as hsaqm-record-dump reads a file).
 */
#ifndef T_RECORD_H
#define T_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "hsaqm-tool/record_format.h"
#include "record_read.h"

/* The record of @kind about packet @index of queue @queue in @f, or NULL. */
static inline const struct hsaqm_rec_record *t_record_find(const struct hsaqm_record_file *f,
							   uint16_t kind, uint32_t queue,
							   uint64_t index)
{
	for (size_t i = 0; i < f->nrecs; i++)
		if (f->recs[i].kind == kind && f->recs[i].queue == queue && f->recs[i].index == index)
			return &f->recs[i];
	return NULL;
}

/* The TIMES record of packet @index of queue @queue in @f, or NULL. */
static inline const struct hsaqm_rec_record *t_record_times_of(const struct hsaqm_record_file *f,
							       uint32_t queue, uint64_t index)
{
	return t_record_find(f, HSAQM_REC_TIMES, queue, index);
}

#endif /* T_RECORD_H */
