/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pp.h - the device model's packet-processor fuzz harness (fuzz_pp.c), shared by the
 * libFuzzer binary (fuzz-pp), the plain replayer (fuzz-pp-replay) and the seed generator.
 *
 * An input is a small program: a configuration byte, one byte per initial queue, then
 * operations (opcode byte, operands). The encoding below is what the seed generator writes;
 * the harness reads any byte string (missing bytes read as 0), so every input is a program.
 */
#ifndef HSAQM_FUZZ_PP_H
#define HSAQM_FUZZ_PP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Configuration byte: bits 0-1 initial fuzz queues (1 + v % 3), bit 2 cwsr_disable,
 * bits 3-4 sched_policy (3: policy 0 with a tight timing file: 2 HQD slots, a 40 us quantum,
 * 2 launched dispatches per queue, a 10-unit default grace period), bits 5-7 PRNG seed.
 * Initial queue byte: bits 0-3 priority, bits 4-7 ring size (4 << (v % 5) packets).
 */
#define FZ_CFG(nq, cwsr_off, policy, seed)                                 \
	((uint8_t)((((nq) - 1) & 3) | ((cwsr_off) ? 4 : 0) | (((policy) & 3) << 3) | \
		   (((seed) & 7) << 5)))
#define FZ_QUEUE(prio, order) ((uint8_t)(((prio) & 15) | (((order) % 5) << 4)))

/*
 * Operations. q operand: bits 0-1 = fuzz queue slot (v % 3); higher bits as noted.
 * A template (TPL, 4 bytes) describes one packet:
 *   t0: bits 0-1 kind (0 dispatch, 1 barrier-AND, 2 barrier-OR, 3 BARRIER_VALUE),
 *       bit 2 barrier bit, bits 3-5 completion signal (FZ_SIG_*), bits 6-7 fence scopes
 *       (0 system, 1 none, 2 agent, 3 the reserved value 3)
 *   dispatch: t1 bits 0-2 kernel (FZ_K_*), bits 3-4 shape (1-D, 2-D, 3-D, 0 dimensions);
 *             t2 workgroups along x - 1 (% 64; 255: a grid of 2^32 - 1 items); t3 bits 0-2
 *             workgroup size code, bits 3-4 extra rows in y/z, bit 5 grid one smaller than
 *             the workgroup, bits 6-7 group segment (0, 1 KiB, 64 KiB, 64 KiB + 1)
 *   barrier-AND/OR: t1 | t2 << 8 | t3 << 16 = five 3-bit dependency selectors (FZ_SIG_*)
 *   BARRIER_VALUE: t1 bits 0-2 signal, bits 3-5 condition (4-7 are invalid); t2 value
 *                  (signed); t3 mask (0 = all ones)
 */
enum fz_op {
	FZ_OP_PUB = 0,      /* q (bits 2-3 count - 1, bits 4-5 doorbell mode), count x TPL */
	FZ_OP_RAW = 1,      /* q (bit 2 ring), fixup, 64 raw bytes */
	FZ_OP_DOORBELL = 2, /* q, mode (bit 7: 8 raw bytes follow; else write index - 1 + delta) */
	FZ_OP_ADVANCE = 3,  /* n: advance n x 500 ns */
	FZ_OP_SIGNAL = 4,   /* sel (bits 0-1 signal, bits 2-4 operation), value (signed) */
	FZ_OP_SUSPEND = 5,  /* bits 0-2 queue mask, bits 3-4 grace (0, 1, 10, 100 units) */
	FZ_OP_RESUME = 6,   /* bits 0-2 queue mask */
	/* q (bits 2-3 ring: keep, NULL, new, keep; bits 4-7 new size); bits 0-4 priority (> 15
	 * is invalid), bit 5 active */
	FZ_OP_UPDATE = 7,
	FZ_OP_DESTROY = 8,  /* q */
	FZ_OP_CREATE = 9,   /* bits 0-4 priority (> 15 is invalid), bits 5-7 ring size */
	FZ_OP_CU_MASK = 10, /* q, width code (32, 64, 96, 128, 0, 48, 80, 1 bits), 4 mask bytes */
	FZ_OP_RUN_IDLE = 11, /* n: run_until_idle for at most n us */
	FZ_OP_SCRIBBLE = 12, /* q (bit 2 ring), offset from the read index, fixup, 64 raw bytes */
	FZ_OP_RESERVE = 13,  /* q (bits 2-4: reserve 1 + v indices without publishing) */
	FZ_OP_FILL = 14,     /* q (bit 2 ring), hole selector, TPL: publish into a reserved hole */
	FZ_OP_WAIT = 15,     /* bits 0-1 signal, 2-3 condition, bit 4 any of the four, bits 5-7
			      * compare value; timeout in us */
	FZ_OP_HANDLER = 16,  /* bits 0-1 signal, 2-3 condition, bits 4-5 action, bits 6-7 its
			      * target (a signal or a queue slot); compare value (signed) */
	FZ_NOPS = 17,
};

/* Signal selectors: none, the packet's own fresh signal, four shared signals, dead, garbage. */
enum fz_sig_sel {
	FZ_SIG_NONE = 0,
	FZ_SIG_OWN = 1,
	FZ_SIG_POOL0 = 2, /* ..FZ_SIG_POOL0 + 3 */
	FZ_SIG_DEAD = 6,  /* model memory that is not a signal */
	FZ_SIG_JUNK = 7,  /* not model memory, misaligned */
};

/* Kernel selectors: five model kernels, then a dead, a misaligned and a zero kernel object. */
enum fz_kernel_sel {
	FZ_K_SHORT = 0,   /* 20 us, 4 waves, callback */
	FZ_K_WIDE = 1,    /* 50 us, 2 waves, callback */
	FZ_K_UNIFORM = 2, /* 40 +- 30 us, 8 waves, callback */
	FZ_K_NORMAL = 3,  /* normal(60, 20) us, 32 waves, callback and counters */
	FZ_K_NOCB = 4,    /* 30 us, 1 wave, nothing to observe */
	FZ_K_DEAD = 5,
	FZ_K_MISALIGNED = 6,
	FZ_K_ZERO = 7,
};

/* Raw-packet fixups (FZ_OP_RAW, FZ_OP_SCRIBBLE). */
#define FZ_FIX_KERNEL 0x01u  /* dispatch: kernel object = selector bits 4-6 */
#define FZ_FIX_OWN_CS 0x02u  /* completion signal = a fresh signal only this packet uses */
#define FZ_FIX_POOL_CS 0x04u /* completion signal = shared signal (bits 4-5) */
#define FZ_FIX_DEPS 0x08u    /* barrier dependencies / barrier-value signal: each handle's
			      * low 3 bits become a FZ_SIG_* selector */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Statistics of the last input (the replayer prints them). */
struct fz_stats {
	uint32_t ops;
	uint32_t errors;    /* queue error callbacks */
	uint64_t callbacks; /* workgroup callbacks */
	uint64_t model_ns;  /* model time at the end */
};
void fz_last_stats(struct fz_stats *out);

#endif /* HSAQM_FUZZ_PP_H */
