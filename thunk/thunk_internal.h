/* SPDX-License-Identifier: MIT */
/*
 * thunk_internal.h - the libhsakmt face of the device model (docs/real-stack.md).
 *
 * libhsakmt.so.1 built from thunk/ answers the hsaKmt* calls of Debian's ROCr 5.2.3 from the
 * device model (sim/): topology from the model's profile, memory from the model's arena,
 * AQL queues translated onto the model's hardware queues, KFD-style events fired when the
 * model completes a packet whose completion signal names an event mailbox.
 *
 * Files: thunk.c (open/close, version, topology, clocks, small calls), thunk_kfd.c (the
 * model's KFD face as libhsakmt's /dev/kfd: queues, RUNTIME_ENABLE, the provider kfd-ioctl
 * finds), thunk_mem.c (memory),
 * thunk_event.c (events), thunk_queue.c (queues and the translator thread),
 * thunk_kernel.c (kernel descriptors -> model kernels, by name), thunk_sdma.c (SDMA queues).
 */
#ifndef HSAQM_THUNK_INTERNAL_H
#define HSAQM_THUNK_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <hsakmt.h>

#include "hsaqm/sim.h"

/* KFD node numbering of the face: node 0 is the CPU, node 1 + d is model device d. */
#define THUNK_CPU_NODE 0u

struct thunk {
	pthread_mutex_t lock;   /* open count, model creation */
	unsigned int open_count;
	struct hsaqm_sim *sim;  /* live while open_count > 0 */
	unsigned int ndev;
	uint64_t mem_size;      /* model memory presented as each heap's size */
	bool shared;            /* a client of hsaqm-simd: no workgroup callbacks */
};

extern struct thunk thunk_g;

/* The model while the face is open, or NULL (callers then answer NO_DEVICE-style errors). */
struct hsaqm_sim *thunk_sim(void);
/* Model device index of KFD node @node, or -1 for the CPU node or an unknown node. */
int thunk_node_dev(uint32_t node);

/* thunk_mem.c */
void thunk_mem_fini(void);
/* True when [p, p + len) lies inside memory the face handed out or registered. */
bool thunk_mem_known(const void *p, uint64_t len);
/* Start and size of the face's allocation holding @p; false if none. */
bool thunk_mem_range(const void *p, uintptr_t *base, uint64_t *size);

/* thunk_event.c */
void thunk_event_fini(void);
/*
 * What the CP's end-of-pipe interrupt does for a signal naming event @id at @mailbox: write
 * the id to the mailbox and fire the event. Ignored unless @mailbox is that event's slot.
 */
void thunk_event_fire(uint64_t mailbox, uint32_t id);
/* An SDMA trap with context @id: fire event @id (its mailbox was written by a fence). */
void thunk_event_interrupt(uint32_t id);
/* True when [p, p + len) lies inside the face's events page (the mailboxes). */
bool thunk_event_page(const void *p, uint64_t len);

/* thunk_kfd.c: the face's handle on the model's KFD face (one per process, as libhsakmt's fd) */
struct sim_kfd_front;
struct sim_hwq;
/* At the first OpenKFD, once the model exists: 0 or -errno. */
int thunk_kfd_open(struct hsaqm_sim *sim);
/* At the last CloseKFD, after the queues went. */
void thunk_kfd_close(void);
/*
 * CREATE_QUEUE of ROCr's AQL queue (ring, indices, percentage, KFD priority) on device @dev,
 * run by the model through @front (the translator's shadow ring). 0 with the KFD queue id
 * and the hardware queue; or -errno.
 */
int thunk_kfd_queue_create(struct hsaqm_sim *sim, unsigned int dev, void *ring, uint32_t size,
			   uint64_t *wptr, uint64_t *rptr, uint32_t percentage, uint32_t priority,
			   const struct sim_kfd_front *front, uint32_t *queue_id,
			   struct sim_hwq **hwq);
/* DESTROY_QUEUE, UPDATE_QUEUE, SET_CU_MASK: 0 or -errno. */
int thunk_kfd_queue_destroy(uint32_t queue_id);
int thunk_kfd_queue_update(uint32_t queue_id, void *ring, uint32_t size, uint32_t percentage,
			   uint32_t priority);
int thunk_kfd_queue_set_cu_mask(uint32_t queue_id, const uint32_t *mask, uint32_t nbits);

/* thunk_queue.c */
void thunk_queue_fini(void);
/* Make the translator look at every queue now (a host is about to sleep in a wait). */
void thunk_translator_kick(void);
/* A queue id and a doorbell slot for a non-AQL queue; 0 or -ENOSPC. */
int thunk_doorbell_alloc(HSA_QUEUEID *id, uint64_t **doorbell);
void thunk_doorbell_free(HSA_QUEUEID id);

/* thunk_sdma.c: the SDMA engines, run by the translator thread */
HSAKMT_STATUS thunk_sdma_create(unsigned int dev, HSA_QUEUE_TYPE type, HSA_QUEUE_PRIORITY prio,
				void *ring, HSAuint64 size, HsaQueueResource *res);
/* 0, or -ENOENT when @id is no SDMA queue. */
int thunk_sdma_destroy(HSA_QUEUEID id);
/* Run every SDMA queue as far as it can go; true if anything ran, *waiting set when a queue
 * waits (a poll, a copy's model time). */
bool thunk_sdma_run(bool *waiting);
/* Report lines for the SDMA queues still open (process exit). */
void thunk_sdma_report(void);
void thunk_sdma_fini(void);

/* thunk_kernel.c */
/*
 * The model kernel for a dispatch of kernel descriptor @kernel_object with @waves waves per
 * workgroup and @nwg workgroups; registered on first use, by name (thunk_kernel.c). In shared
 * mode (no workgroup callbacks) the dispatch's workgroups are counted and a ROCr blit kernel's
 * copy is done here, when the translator hands the dispatch to the model. Returns 0 and
 * *model_handle, or a negative errno.
 */
int thunk_kernel_resolve(uint64_t kernel_object, uint32_t waves, uint64_t nwg, void *kernarg,
			 uint64_t *model_handle);
/* A line for $HSAQM_THUNK_REPORT (queues created, priorities), written at the last close. */
void thunk_report_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void thunk_kernel_report(void);
void thunk_kernel_fini(void);

#endif /* HSAQM_THUNK_INTERNAL_H */
