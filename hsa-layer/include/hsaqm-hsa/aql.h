/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-hsa/aql.h - AQL packets (HSA 1.2 Architected Queuing Language) as hsaqm builds,
 * publishes and consumes them.
 *
 * Every AQL packet is 64 bytes. Its first 32-bit word is the 16-bit header (type, barrier
 * bit, acquire and release fence scopes) and a 16-bit field that depends on the type (the
 * dispatch "setup", the AMD vendor format byte, the agent-dispatch type). A packet
 * processor reads a slot only once that word says something other than INVALID, so a
 * producer writes bytes 4..63 first and the first word last, in one 32-bit release store
 * (as ROCclr does). The slot functions at the end of this header are that protocol; the
 * ring writer (hsaqm-hsa/ring.h) builds on them.
 *
 * Bit layouts are HSA 1.2's (hsa.h: hsa_packet_header_t, hsa_kernel_dispatch_packet_setup_t)
 * and AMD's vendor packet (hsa_ext_amd.h: hsa_amd_barrier_value_packet_t). Signals are their
 * 64-bit handles (0 = no signal); hsa.h is not needed to use this header.
 *
 * The packet structs are laid out so that no member needs padding; the static asserts below
 * prove every offset, so they are as compact as packed structs while keeping the natural
 * alignment that atomic access to the first word needs (a packed struct would have
 * alignment 1).
 */
#ifndef HSAQM_AQL_H
#define HSAQM_AQL_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm-common/barrier.h"

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "AQL packets are little-endian: header | setup << 16 is the first 32-bit word"
#endif

#define HSAQM_AQL_PACKET_SIZE 64u

/* Packet types (header bits 0-7). 6..255 are reserved. */
#define HSAQM_AQL_TYPE_VENDOR 0u
#define HSAQM_AQL_TYPE_INVALID 1u
#define HSAQM_AQL_TYPE_KERNEL_DISPATCH 2u
#define HSAQM_AQL_TYPE_BARRIER_AND 3u
#define HSAQM_AQL_TYPE_AGENT_DISPATCH 4u
#define HSAQM_AQL_TYPE_BARRIER_OR 5u
#define HSAQM_AQL_TYPE_MAX HSAQM_AQL_TYPE_BARRIER_OR

/* Fence scopes (header bits 9-10 acquire, 11-12 release). 3 is reserved. */
#define HSAQM_AQL_FENCE_SCOPE_NONE 0u
#define HSAQM_AQL_FENCE_SCOPE_AGENT 1u
#define HSAQM_AQL_FENCE_SCOPE_SYSTEM 2u
#define HSAQM_AQL_FENCE_SCOPE_MAX HSAQM_AQL_FENCE_SCOPE_SYSTEM

/* Header bit positions and widths (HSA 1.2 hsa_packet_header_t / _width_t). */
#define HSAQM_AQL_HEADER_TYPE_SHIFT 0
#define HSAQM_AQL_HEADER_TYPE_WIDTH 8
#define HSAQM_AQL_HEADER_BARRIER_SHIFT 8
#define HSAQM_AQL_HEADER_BARRIER_WIDTH 1
#define HSAQM_AQL_HEADER_ACQUIRE_SHIFT 9
#define HSAQM_AQL_HEADER_ACQUIRE_WIDTH 2
#define HSAQM_AQL_HEADER_RELEASE_SHIFT 11
#define HSAQM_AQL_HEADER_RELEASE_WIDTH 2
/* Bits 13-15 are reserved and must be 0. */
#define HSAQM_AQL_HEADER_RESERVED_MASK 0xe000u

#define HSAQM_AQL_FIELD_MASK(width) ((1u << (width)) - 1u)

/* Kernel-dispatch setup: bits 0-1 are the number of grid dimensions (1-3), 2-15 reserved. */
#define HSAQM_AQL_SETUP_DIMENSIONS_SHIFT 0
#define HSAQM_AQL_SETUP_DIMENSIONS_WIDTH 2
#define HSAQM_AQL_SETUP_RESERVED_MASK 0xfffcu

/* AMD vendor packets: byte 2 of a VENDOR packet is the AMD format. */
#define HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE 2u

/* Barrier-value conditions (hsa_signal_condition_t): (signal & mask) COND value. */
#define HSAQM_AQL_COND_EQ 0u
#define HSAQM_AQL_COND_NE 1u
#define HSAQM_AQL_COND_LT 2u
#define HSAQM_AQL_COND_GTE 3u
#define HSAQM_AQL_COND_MAX HSAQM_AQL_COND_GTE

/* Barrier-AND and barrier-OR carry at most this many dependency signals. */
#define HSAQM_AQL_MAX_DEPS 5u

/* The first word of a slot the packet processor must not read: type INVALID, all else 0. */
#define HSAQM_AQL_INVALID_WORD ((uint32_t)HSAQM_AQL_TYPE_INVALID)

/* hsa_kernel_dispatch_packet_t */
struct hsaqm_aql_dispatch {
	uint16_t header;
	uint16_t setup;
	uint16_t workgroup_size_x;
	uint16_t workgroup_size_y;
	uint16_t workgroup_size_z;
	uint16_t reserved0;
	uint32_t grid_size_x;
	uint32_t grid_size_y;
	uint32_t grid_size_z;
	uint32_t private_segment_size;
	uint32_t group_segment_size;
	uint64_t kernel_object;
	uint64_t kernarg_address; /* a host pointer in the large (64-bit) model */
	uint64_t reserved2;
	uint64_t completion_signal;
};

/* hsa_barrier_and_packet_t and hsa_barrier_or_packet_t share this layout. */
struct hsaqm_aql_barrier {
	uint16_t header;
	uint16_t reserved0;
	uint32_t reserved1;
	uint64_t dep_signal[HSAQM_AQL_MAX_DEPS];
	uint64_t reserved2;
	uint64_t completion_signal;
};

/* hsa_amd_barrier_value_packet_t: a VENDOR packet whose byte 2 is the AMD format. */
struct hsaqm_aql_barrier_value {
	uint16_t header;
	uint8_t amd_format; /* HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE */
	uint8_t reserved;
	uint32_t reserved0;
	uint64_t signal;
	int64_t value;
	int64_t mask;
	uint32_t cond; /* HSAQM_AQL_COND_* */
	uint32_t reserved1;
	uint64_t reserved2;
	uint64_t reserved3;
	uint64_t completion_signal;
};

/* hsa_agent_dispatch_packet_t */
struct hsaqm_aql_agent_dispatch {
	uint16_t header;
	uint16_t type;
	uint32_t reserved0;
	uint64_t return_address;
	uint64_t arg[4];
	uint64_t reserved2;
	uint64_t completion_signal;
};

/* Any packet, or a ring slot; aligned like a ring's slots (HSA aligns the ring to a packet). */
union hsaqm_aql_packet {
	struct {
		uint16_t header;
		uint16_t setup; /* dispatch setup, AMD format byte + reserved, agent type */
	} common;
	struct hsaqm_aql_dispatch dispatch;
	struct hsaqm_aql_barrier barrier;
	struct hsaqm_aql_barrier_value barrier_value;
	struct hsaqm_aql_agent_dispatch agent_dispatch;
	uint8_t bytes[HSAQM_AQL_PACKET_SIZE];
	uint32_t u32[HSAQM_AQL_PACKET_SIZE / 4];
	uint64_t u64[HSAQM_AQL_PACKET_SIZE / 8];
} __attribute__((aligned(HSAQM_AQL_PACKET_SIZE)));

#define HSAQM_AQL_ASSERT_OFFSET(type, member, off)                                    \
	static_assert(offsetof(type, member) == (off), #type "." #member " is not at byte " #off)

static_assert(sizeof(union hsaqm_aql_packet) == 64, "an AQL packet is 64 bytes");
static_assert(sizeof(struct hsaqm_aql_dispatch) == 64, "dispatch packet size");
static_assert(sizeof(struct hsaqm_aql_barrier) == 64, "barrier packet size");
static_assert(sizeof(struct hsaqm_aql_barrier_value) == 64, "barrier-value packet size");
static_assert(sizeof(struct hsaqm_aql_agent_dispatch) == 64, "agent-dispatch packet size");
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, setup, 2);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, workgroup_size_x, 4);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, workgroup_size_y, 6);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, workgroup_size_z, 8);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, reserved0, 10);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, grid_size_x, 12);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, grid_size_y, 16);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, grid_size_z, 20);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, private_segment_size, 24);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, group_segment_size, 28);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, kernel_object, 32);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, kernarg_address, 40);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, reserved2, 48);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_dispatch, completion_signal, 56);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier, reserved0, 2);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier, reserved1, 4);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier, dep_signal, 8);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier, reserved2, 48);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier, completion_signal, 56);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, amd_format, 2);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, reserved, 3);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, reserved0, 4);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, signal, 8);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, value, 16);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, mask, 24);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, cond, 32);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, reserved1, 36);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, reserved2, 40);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, reserved3, 48);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_barrier_value, completion_signal, 56);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, type, 2);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, reserved0, 4);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, return_address, 8);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, arg, 16);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, reserved2, 48);
HSAQM_AQL_ASSERT_OFFSET(struct hsaqm_aql_agent_dispatch, completion_signal, 56);

/* The fields of a 16-bit packet header. */
struct hsaqm_aql_header {
	uint8_t type;          /* HSAQM_AQL_TYPE_* */
	bool barrier;          /* wait for earlier packets to complete before launching */
	uint8_t acquire_scope; /* HSAQM_AQL_FENCE_SCOPE_* */
	uint8_t release_scope; /* HSAQM_AQL_FENCE_SCOPE_* */
};

/**
 * hsaqm_aql_header_encode() - pack header fields into the 16-bit AQL header.
 * @h: the fields; type 0..5 (INVALID included, it is what a consumed slot holds), scopes 0..2.
 * @out: receives the header; reserved bits 13-15 are 0.
 *
 * Return: 0; -EINVAL if @h or @out is NULL, the type is reserved (> 5) or a scope is
 * reserved (3) or larger. On error *@out is not modified.
 */
int hsaqm_aql_header_encode(const struct hsaqm_aql_header *h, uint16_t *out);

/**
 * hsaqm_aql_header_decode() - split a 16-bit AQL header into its fields.
 * @header: the header (the low 16 bits of a slot's first word).
 * @out: receives the fields, always (also on -EINVAL, so a caller can say what was
 *       wrong): type = bits 0-7 as is, barrier = bit 8, acquire_scope = bits 9-10,
 *       release_scope = bits 11-12. Bits 13-15 are not returned.
 *
 * Return: 0 for a header HSA 1.2 defines; -EINVAL if @out is NULL (nothing written), or
 * the type is reserved (6..255), or either fence scope is the reserved value 3, or a
 * reserved bit 13-15 is set. A VENDOR header decodes like any other: its low 16 bits
 * follow the same layout (AMD's vendor packets do).
 */
int hsaqm_aql_header_decode(uint16_t header, struct hsaqm_aql_header *out);

/**
 * hsaqm_aql_setup_encode() - the kernel-dispatch setup field for @dims grid dimensions.
 * @dims: 1, 2 or 3.
 * @out: receives the setup; reserved bits 2-15 are 0.
 *
 * Return: 0; -EINVAL if @out is NULL or @dims is not 1-3 (*@out untouched).
 */
int hsaqm_aql_setup_encode(unsigned int dims, uint16_t *out);

/**
 * hsaqm_aql_setup_decode() - the number of grid dimensions in a kernel-dispatch setup.
 * @setup: the setup field (bits 16-31 of a dispatch slot's first word).
 * @dims: receives bits 0-1 as is, always (also on -EINVAL).
 *
 * Return: 0; -EINVAL if @dims is NULL (nothing written), the dimension field is 0 or a
 * reserved bit 2-15 is set.
 */
int hsaqm_aql_setup_decode(uint16_t setup, unsigned int *dims);

/* What a kernel-dispatch packet carries; the builder derives header and setup. */
struct hsaqm_aql_dispatch_desc {
	unsigned int dims;          /* 1-3 */
	uint16_t workgroup_size[3]; /* x y z, each >= 1; unused dimensions must be 1 */
	uint32_t grid_size[3];      /* x y z, each >= its workgroup size; unused must be 1 */
	uint32_t private_segment_size;
	uint32_t group_segment_size;
	uint64_t kernel_object;     /* != 0 */
	uint64_t kernarg_address;   /* may be 0 (no arguments) */
	uint64_t completion_signal; /* 0 = none */
	bool barrier;
	uint8_t acquire_scope;
	uint8_t release_scope;
};

/* What a barrier-AND or barrier-OR packet carries. */
struct hsaqm_aql_barrier_desc {
	const uint64_t *dep_signals; /* num_deps handles; may be NULL when num_deps is 0 */
	unsigned int num_deps;       /* 0-5; unused dep_signal slots are written 0 */
	uint64_t completion_signal;  /* 0 = none */
	bool barrier;
	uint8_t acquire_scope;
	uint8_t release_scope;
};

/* What AMD's BARRIER_VALUE packet carries: wait until (signal & mask) cond value. */
struct hsaqm_aql_barrier_value_desc {
	uint64_t signal; /* 0 = a satisfied dependency */
	int64_t value;
	int64_t mask;
	uint32_t cond;   /* HSAQM_AQL_COND_* */
	uint64_t completion_signal;
	bool barrier;
	uint8_t acquire_scope;
	uint8_t release_scope;
};

/**
 * hsaqm_aql_dispatch_build() - fill a whole kernel-dispatch packet (all 64 bytes).
 * @out: the packet image (not a live slot: publish it with hsaqm_aql_publish()).
 * @d: the dispatch; see struct hsaqm_aql_dispatch_desc for each field's rule (HSA 1.2's).
 *
 * Return: 0; -EINVAL if a pointer is NULL, dims is not 1-3, a workgroup or grid size is 0,
 * a grid size is smaller than its workgroup size, an unused dimension is not 1, the kernel
 * object is 0 or a fence scope is not 0-2. On error *@out is not modified.
 */
int hsaqm_aql_dispatch_build(union hsaqm_aql_packet *out, const struct hsaqm_aql_dispatch_desc *d);

/**
 * hsaqm_aql_barrier_and_build() - fill a whole barrier-AND packet.
 * @out: the packet image.
 * @d: the barrier; a dependency handle of 0 counts as satisfied, so 0 deps is a no-op barrier.
 *
 * Return: 0; -EINVAL if a pointer is NULL (dep_signals only when num_deps > 0), num_deps
 * > 5 or a fence scope is not 0-2. On error *@out is not modified.
 */
int hsaqm_aql_barrier_and_build(union hsaqm_aql_packet *out,
				const struct hsaqm_aql_barrier_desc *d);

/**
 * hsaqm_aql_barrier_or_build() - fill a whole barrier-OR packet.
 * @out: the packet image.
 * @d: the barrier. For barrier-OR a handle of 0 is a dependency that is never satisfied
 *     (HSA 1.2), and unused slots are 0, so at least one handle must be non-zero.
 *
 * Return: 0; -EINVAL as for hsaqm_aql_barrier_and_build(), and also when no dependency
 * handle is non-zero (the packet would block its queue forever).
 */
int hsaqm_aql_barrier_or_build(union hsaqm_aql_packet *out,
			       const struct hsaqm_aql_barrier_desc *d);

/**
 * hsaqm_aql_barrier_value_build() - fill a whole AMD BARRIER_VALUE vendor packet.
 * @out: the packet image: header type VENDOR, byte 2 = HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE.
 * @d: the condition to wait for.
 *
 * Return: 0; -EINVAL if a pointer is NULL, cond is not 0-3 or a fence scope is not 0-2.
 * On error *@out is not modified.
 */
int hsaqm_aql_barrier_value_build(union hsaqm_aql_packet *out,
				  const struct hsaqm_aql_barrier_value_desc *d);

/*
 * Slot protocol. A slot is a packet in a ring that a packet processor may be reading. The
 * functions below are inline because the ring writer calls them once per packet.
 */

/**
 * hsaqm_aql_type_publishable() - whether a packet whose first word is @word may be published.
 *
 * Never published: a type a packet processor stalls on (INVALID) or rejects (reserved).
 * Return: true for VENDOR, KERNEL_DISPATCH, BARRIER_AND, AGENT_DISPATCH and BARRIER_OR.
 */
static inline bool hsaqm_aql_type_publishable(uint32_t word)
{
	uint32_t type = word & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH);

	return type != HSAQM_AQL_TYPE_INVALID && type <= HSAQM_AQL_TYPE_MAX;
}

/**
 * hsaqm_aql_slot_write_body() - copy bytes 4..63 of @pkt into @slot, leaving the first word.
 * @slot: a ring slot whose first word the consumer may be reading (it stays INVALID).
 * @pkt: the packet image.
 *
 * Plain stores: nothing is visible as a packet until hsaqm_aql_slot_store_header().
 * Return: 0; -EINVAL if a pointer is NULL.
 */
static inline int hsaqm_aql_slot_write_body(void *slot, const union hsaqm_aql_packet *pkt)
{
	if (!slot || !pkt)
		return -EINVAL;
	memcpy((uint8_t *)slot + 4, &pkt->bytes[4], HSAQM_AQL_PACKET_SIZE - 4);
	return 0;
}

/**
 * hsaqm_aql_slot_store_header() - make @slot a packet: one 32-bit release store of
 * header | setup << 16.
 * @slot: the slot, whose body is already written.
 * @header: the 16-bit header.
 * @setup: the 16-bit field that follows it (dispatch setup, AMD format, agent type).
 *
 * Return: 0; -EINVAL if @slot is NULL or @header has the type INVALID or a reserved type.
 */
static inline int hsaqm_aql_slot_store_header(void *slot, uint16_t header, uint16_t setup)
{
	uint32_t word = (uint32_t)header | (uint32_t)setup << 16;

	if (!slot || !hsaqm_aql_type_publishable(word))
		return -EINVAL;
	/*
	 * Release: orders the body stores of this slot (and everything earlier) before the
	 * word that makes the packet valid; pairs with the consumer's acquire load of it.
	 */
	hsaqm_store_release((uint32_t *)slot, word);
	return 0;
}

/**
 * hsaqm_aql_publish() - write a whole packet into a slot as ROCclr does: body first, then
 * the first word (header | setup << 16) in one 32-bit release store.
 * @slot: a slot the caller has reserved (its first word is INVALID).
 * @pkt: the packet image.
 *
 * Return: 0; -EINVAL if a pointer is NULL or the packet's type is INVALID or reserved
 * (nothing is written then).
 */
static inline int hsaqm_aql_publish(void *slot, const union hsaqm_aql_packet *pkt)
{
	if (!slot || !pkt || !hsaqm_aql_type_publishable(pkt->u32[0]))
		return -EINVAL;
	memcpy((uint8_t *)slot + 4, &pkt->bytes[4], HSAQM_AQL_PACKET_SIZE - 4);
	/* Release: the body above becomes visible no later than the header that validates it. */
	hsaqm_store_release((uint32_t *)slot, pkt->u32[0]);
	return 0;
}

/**
 * hsaqm_aql_slot_load_header() - read a slot's first word as a consumer does.
 * @slot: the slot.
 *
 * Return: header | setup << 16. The header type is the low 8 bits; if it is not
 * HSAQM_AQL_TYPE_INVALID, the rest of the packet may be read after this call. A NULL
 * @slot reads as HSAQM_AQL_INVALID_WORD (there is no packet to read).
 */
static inline uint32_t hsaqm_aql_slot_load_header(const void *slot)
{
	if (!slot)
		return HSAQM_AQL_INVALID_WORD;
	/* Acquire: pairs with the producer's release of this word: the body read next is whole. */
	return hsaqm_load_acquire((const uint32_t *)slot);
}

/**
 * hsaqm_aql_slot_invalidate() - the packet processor's "consumed": the first word becomes
 * HSAQM_AQL_INVALID_WORD (type INVALID, every other bit 0).
 * @slot: the slot.
 *
 * Return: 0; -EINVAL if @slot is NULL.
 */
static inline int hsaqm_aql_slot_invalidate(void *slot)
{
	if (!slot)
		return -EINVAL;
	/*
	 * Release: the consumer's reads of this packet happen before the slot is marked free
	 * of a valid packet (the read index, stored with release afterwards, is what lets a
	 * producer reuse the slot).
	 */
	hsaqm_store_release((uint32_t *)slot, HSAQM_AQL_INVALID_WORD);
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_AQL_H */
