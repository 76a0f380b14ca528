/* SPDX-License-Identifier: MIT */
/*
 * kfd_face_internal.h - what the KFD face (kfd_face.c) and the generated sysfs tree
 * (sysfs.c) share, plus two views of the face's state for the model's own tests.
 * Nothing outside sim/ and its tests includes it.
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

#endif /* HSAQM_SIM_KFD_FACE_INTERNAL_H */
