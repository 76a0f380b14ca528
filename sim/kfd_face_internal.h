/* SPDX-License-Identifier: MIT */
/*
 * kfd_face_internal.h - what the KFD face (kfd_face.c) and the generated sysfs tree
 * (sysfs.c) share, plus two views of the face's state for the model's own tests.
 * Nothing outside sim/, its tests and sim/kfdemu/ (the emulated /dev/kfd, a front end of the KFD
 * face) includes it.
 */
#ifndef HSAQM_SIM_KFD_FACE_INTERNAL_H
#define HSAQM_SIM_KFD_FACE_INTERNAL_H

#include <stdint.h>

#include "sim_internal.h"

/*
 * The gpu_id of device @dev as the generated topology prints it and CREATE_QUEUE expects
 * it: a non-zero 16-bit hash, as the KFD's own (a crc16 of PCI data), stable for a given
 * profile and device index and different for each device of the model.
 * Return: the id, or 0 for a device the model does not have.
 */
uint32_t sim_kfd_gpu_id(const struct hsaqm_sim *sim, unsigned int dev);

/* The device of a gpu_id. Return: its index, or -1 when no device has that id. */
int sim_kfd_gpu_dev(const struct hsaqm_sim *sim, uint32_t gpu_id);

/*
 * Test views. sim_kfd_face_hwq(): the hardware queue behind queue @queue_id of the KFD
 * handle @handle (NULL when there is none); it stays valid until that queue is destroyed.
 * sim_kfd_face_queue_count(): queues of every open handle of the model.
 */
struct sim_hwq *sim_kfd_face_hwq(struct hsaqm_sim *sim, int handle, uint32_t queue_id);
unsigned int sim_kfd_face_queue_count(struct hsaqm_sim *sim);

/*
 * sim_kfd_face_procs() - the face's KFD processes and their queues, read under the face's
 * lock: per process one entry with queue_id SIM_PROC_NO_QUEUE, then one per queue (pid =
 * the OS pid that opened it). *@out is malloc'ed (the caller frees it).
 * Return: 0; -EINVAL; -ENOMEM.
 */
int sim_kfd_face_procs(struct hsaqm_sim *sim, struct sim_proc_queue **out, unsigned int *n);

/*
 * A KFD queue fed by a front end. The emulated /dev/kfd (sim/kfdemu/) plays the CP's front: ROCr's
 * ring carries code-object kernel descriptors and ROCr's signals, which the packet processor
 * does not know, so the front translates each packet into a ring of its own that the model
 * runs. The KFD queue must still be ROCr's: CREATE_QUEUE names ROCr's ring and pointers, as
 * libhsakmt's does, and that is what GET_QUEUE_SNAPSHOT, kfd/proc and a debugger matching
 * ring addresses (hsaqm's Lv3) see; DBG_TRAP SUSPEND/RESUME and UPDATE_QUEUE act on the
 * hardware queue that runs the front's ring.
 */
struct sim_kfd_front {
	/*
	 * The front runs the queue entirely (the emulated /dev/kfd's SDMA engines): the KFD
	 * queue, its id and doorbell exist, the model has no hardware queue for it, and the
	 * fields below are not used.
	 */
	bool runs_all;
	void *ring;          /* model memory, the size CREATE_QUEUE gives */
	uint64_t *write_ptr; /* model memory: the front's write and read indices */
	uint64_t *read_ptr;
	/* Called on a queue error after the face recorded it (engine/error thread). Optional. */
	sim_hwq_error_fn error_fn;
	void *error_ctx;
};

/*
 * sim_kfd_face_front_next() - the next CREATE_QUEUE ioctl issued *by this thread* on a KFD
 * face of an in-process or client model creates a queue whose packet processor runs @front
 * (which must stay valid until that call returns); NULL goes back to ordinary queues. The
 * caller sets it right before its CREATE_QUEUE and clears it right after.
 */
void sim_kfd_face_front_next(const struct sim_kfd_front *front);

/*
 * The emulated /dev/kfd (sim/kfdemu/) needs three things a kfd-ioctl transport does not carry:
 *
 * sim_kfd_face_render_mmap() - mmap() of the DRM render node at a memory object's mmap
 * offset (what ALLOC_MEMORY_OF_GPU returned for VRAM/GTT): the object's model memory mapped
 * at @addr. Return: the address, or MAP_FAILED with errno set.
 *
 * sim_kfd_face_signal_interrupt() - what the CP's end-of-pipe interrupt makes the KFD do for
 * signal event @event_id of the calling process: signal it if its slot in the events page
 * was written, and wake its waiters. Return: 0; -ENOENT for no such event.
 *
 * sim_kfd_face_unmodelled() - how many ioctls the face answered "not modelled" (known to the
 * KFD, not modelled; or unknown to it) since the model was created.
 */
void *sim_kfd_face_render_mmap(struct hsaqm_sim *sim, void *addr, size_t len, int prot, int flags,
			       uint64_t offset);
int sim_kfd_face_signal_interrupt(struct hsaqm_sim *sim, uint32_t event_id);
/*
 * sim_kfd_face_event_waiters() - how many waits of the calling process are registered on
 * its event @event_id now (the KFD's wait queue; a test waits for a waiter to be in place).
 * Return: the count; -ENODEV without a KFD face, -ENOENT for no such process or event.
 */
int sim_kfd_face_event_waiters(struct hsaqm_sim *sim, uint32_t event_id);
/*
 * sim_kfd_face_gpu_object() - the memory object of the calling process whose GPU virtual range
 * holds @va (VRAM, GTT, userptr, doorbell or MMIO object): its GPU start and size, and where
 * the GPU's accesses land in this process (*@host: its model memory, the runtime's own pages
 * for a userptr object). What the CP and the DMA engines read and write goes through this:
 * device memory a runtime never maps for the CPU is still the GPU's. Return: 0; -ENOENT.
 */
int sim_kfd_face_gpu_object(struct hsaqm_sim *sim, uint64_t va, uint64_t *base, uint64_t *size,
			    void **host);
uint64_t sim_kfd_face_unmodelled(struct hsaqm_sim *sim);
/* How many ioctls of ROCm's out-of-tree driver (0x80..0x86) were answered -EINVAL. */
uint64_t sim_kfd_face_dkms_only(struct hsaqm_sim *sim);

/*
 * sim_kfd_face_set_runtime_topology() - before the sysfs tree is first used: write the
 * topology a runtime's thunk reads (sysfs.c): every count with its folders (memory banks,
 * caches, IO links), no xGMI peers, the model's memory as the GPU's local memory, no SVM
 * API, no GWS. Without it the GPU nodes carry the capture's properties verbatim (what the
 * probe's inventory is tested against). Return: 0; -EBUSY when the tree exists already.
 */
int sim_kfd_face_set_runtime_topology(struct hsaqm_sim *sim);

#endif /* HSAQM_SIM_KFD_FACE_INTERNAL_H */
