/* SPDX-License-Identifier: MIT */
/*
 * aql.c - AQL header and setup encoding, and the packet builders.
 *
 * The builders validate the whole descriptor before touching the output so that a caller
 * never holds a half-built packet, and they write all 64 bytes (reserved fields 0) because
 * a packet processor is entitled to reject non-zero reserved fields.
 */
#include <errno.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"

/* "shift, width" of a header field, e.g. field(type, HDR(TYPE)). */
#define HDR(name) HSAQM_AQL_HEADER_##name##_SHIFT, HSAQM_AQL_HEADER_##name##_WIDTH
#define SETUP_DIMS HSAQM_AQL_SETUP_DIMENSIONS_SHIFT, HSAQM_AQL_SETUP_DIMENSIONS_WIDTH

static inline uint16_t field(uint32_t value, unsigned int shift, unsigned int width)
{
	return (uint16_t)((value & HSAQM_AQL_FIELD_MASK(width)) << shift);
}

static inline uint32_t extract(uint32_t word, unsigned int shift, unsigned int width)
{
	return (word >> shift) & HSAQM_AQL_FIELD_MASK(width);
}

static bool scopes_valid(uint8_t acquire, uint8_t release)
{
	return acquire <= HSAQM_AQL_FENCE_SCOPE_MAX && release <= HSAQM_AQL_FENCE_SCOPE_MAX;
}

/* Callers have validated type and scopes. */
static uint16_t header_word(uint32_t type, bool barrier, uint8_t acquire, uint8_t release)
{
	return field(type, HDR(TYPE)) | field(barrier ? 1 : 0, HDR(BARRIER)) |
	       field(acquire, HDR(ACQUIRE)) | field(release, HDR(RELEASE));
}

int hsaqm_aql_header_encode(const struct hsaqm_aql_header *h, uint16_t *out)
{
	if (!h || !out)
		return -EINVAL;
	if (h->type > HSAQM_AQL_TYPE_MAX || !scopes_valid(h->acquire_scope, h->release_scope))
		return -EINVAL;
	*out = header_word(h->type, h->barrier, h->acquire_scope, h->release_scope);
	return 0;
}

int hsaqm_aql_header_decode(uint16_t header, struct hsaqm_aql_header *out)
{
	if (!out)
		return -EINVAL;
	out->type = (uint8_t)extract(header, HDR(TYPE));
	out->barrier = extract(header, HDR(BARRIER));
	out->acquire_scope = (uint8_t)extract(header, HDR(ACQUIRE));
	out->release_scope = (uint8_t)extract(header, HDR(RELEASE));
	if (out->type > HSAQM_AQL_TYPE_MAX || !scopes_valid(out->acquire_scope, out->release_scope))
		return -EINVAL;
	if (header & HSAQM_AQL_HEADER_RESERVED_MASK)
		return -EINVAL;
	return 0;
}

int hsaqm_aql_setup_encode(unsigned int dims, uint16_t *out)
{
	if (!out || dims < 1 || dims > 3)
		return -EINVAL;
	*out = field(dims, SETUP_DIMS);
	return 0;
}

int hsaqm_aql_setup_decode(uint16_t setup, unsigned int *dims)
{
	if (!dims)
		return -EINVAL;
	*dims = extract(setup, SETUP_DIMS);
	if (*dims == 0 || (setup & HSAQM_AQL_SETUP_RESERVED_MASK))
		return -EINVAL;
	return 0;
}

static bool dispatch_desc_valid(const struct hsaqm_aql_dispatch_desc *d)
{
	if (d->dims < 1 || d->dims > 3 || d->kernel_object == 0)
		return false;
	if (!scopes_valid(d->acquire_scope, d->release_scope))
		return false;
	for (unsigned int i = 0; i < 3; i++) {
		if (i < d->dims) {
			/* HSA 1.2: sizes > 0 and the grid no smaller than one workgroup. */
			if (d->workgroup_size[i] == 0 || d->grid_size[i] < d->workgroup_size[i])
				return false;
		} else if (d->workgroup_size[i] != 1 || d->grid_size[i] != 1) {
			/* HSA 1.2: "the only valid value is 1" for dimensions beyond dims. */
			return false;
		}
	}
	return true;
}

int hsaqm_aql_dispatch_build(union hsaqm_aql_packet *out, const struct hsaqm_aql_dispatch_desc *d)
{
	struct hsaqm_aql_dispatch *p;

	if (!out || !d || !dispatch_desc_valid(d))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	p = &out->dispatch;
	p->header = header_word(HSAQM_AQL_TYPE_KERNEL_DISPATCH, d->barrier, d->acquire_scope,
				d->release_scope);
	p->setup = field(d->dims, SETUP_DIMS);
	p->workgroup_size_x = d->workgroup_size[0];
	p->workgroup_size_y = d->workgroup_size[1];
	p->workgroup_size_z = d->workgroup_size[2];
	p->grid_size_x = d->grid_size[0];
	p->grid_size_y = d->grid_size[1];
	p->grid_size_z = d->grid_size[2];
	p->private_segment_size = d->private_segment_size;
	p->group_segment_size = d->group_segment_size;
	p->kernel_object = d->kernel_object;
	p->kernarg_address = d->kernarg_address;
	p->completion_signal = d->completion_signal;
	return 0;
}

static int barrier_build(union hsaqm_aql_packet *out, const struct hsaqm_aql_barrier_desc *d,
			 uint32_t type)
{
	struct hsaqm_aql_barrier *p;

	if (!out || !d || d->num_deps > HSAQM_AQL_MAX_DEPS || (d->num_deps && !d->dep_signals))
		return -EINVAL;
	if (!scopes_valid(d->acquire_scope, d->release_scope))
		return -EINVAL;
	if (type == HSAQM_AQL_TYPE_BARRIER_OR) {
		bool any = false;

		for (unsigned int i = 0; i < d->num_deps; i++)
			any |= d->dep_signals[i] != 0;
		if (!any)
			return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	p = &out->barrier;
	p->header = header_word(type, d->barrier, d->acquire_scope, d->release_scope);
	for (unsigned int i = 0; i < d->num_deps; i++)
		p->dep_signal[i] = d->dep_signals[i];
	p->completion_signal = d->completion_signal;
	return 0;
}

int hsaqm_aql_barrier_and_build(union hsaqm_aql_packet *out,
				const struct hsaqm_aql_barrier_desc *d)
{
	return barrier_build(out, d, HSAQM_AQL_TYPE_BARRIER_AND);
}

int hsaqm_aql_barrier_or_build(union hsaqm_aql_packet *out,
			       const struct hsaqm_aql_barrier_desc *d)
{
	return barrier_build(out, d, HSAQM_AQL_TYPE_BARRIER_OR);
}

int hsaqm_aql_barrier_value_build(union hsaqm_aql_packet *out,
				  const struct hsaqm_aql_barrier_value_desc *d)
{
	struct hsaqm_aql_barrier_value *p;

	if (!out || !d || d->cond > HSAQM_AQL_COND_MAX ||
	    !scopes_valid(d->acquire_scope, d->release_scope))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	p = &out->barrier_value;
	p->header = header_word(HSAQM_AQL_TYPE_VENDOR, d->barrier, d->acquire_scope,
				d->release_scope);
	p->amd_format = HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE;
	p->signal = d->signal;
	p->value = d->value;
	p->mask = d->mask;
	p->cond = d->cond;
	p->completion_signal = d->completion_signal;
	return 0;
}
