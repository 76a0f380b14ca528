// SPDX-License-Identifier: MIT
/*
 * queues.c - user queues: create, update, destroy, CU mask, wave state.
 *
 * Arguments the KFD would refuse are refused here first with -EINVAL, with the same rules
 * (kfd_chardev.c), so that a caller gets the same answer from the device model.
 */
#include <errno.h>
#include <string.h>

#include "kfd_internal.h"
#include "hsaqm-common/log.h"

static bool is_pow2_or_zero(uint64_t v)
{
	return (v & (v - 1)) == 0;
}

static bool queue_knobs_valid(uint32_t percentage, uint32_t priority, uint32_t ring_size)
{
	return (percentage & HSAQM_KFD_QUEUE_PERCENTAGE_MASK) <= HSAQM_KFD_MAX_QUEUE_PERCENTAGE &&
	       priority <= HSAQM_KFD_MAX_QUEUE_PRIORITY && is_pow2_or_zero(ring_size);
}

int hsaqm_kfd_queue_create(struct hsaqm_kfd *kfd, struct hsaqm_kfd_create_queue_args *args)
{
	bool new_layout;
	int ret;

	if (!kfd || !args)
		return -EINVAL;
	if (args->queue_type > HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID ||
	    !queue_knobs_valid(args->queue_percentage, args->queue_priority, args->ring_size) ||
	    !is_pow2_or_zero(args->metadata_ring_size))
		return -EINVAL;

	new_layout = hsaqm_kfd_version_code(kfd) >= HSAQM_KFD_VERSION_SDMA_ENGINE_ID;
	if (!new_layout) {
		if (args->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID) {
			hsaqm_log_warn("KFD %u.%u cannot place an SDMA queue on a chosen engine "
				       "(needs 1.17)", kfd->major, kfd->minor);
			return -EOPNOTSUPP;
		}
		/*
		 * Such a kernel reads only the first 88 bytes; fields past them must not carry
		 * a request it would silently drop.
		 */
		if (args->sdma_engine_id || args->metadata_ring_size)
			return -EINVAL;
	}
	ret = hsaqm_kfd_ioctl(kfd, new_layout ? HSAQM_KFD_IOC_CREATE_QUEUE :
						HSAQM_KFD_IOC_CREATE_QUEUE_1_11, args);
	if (ret < 0)
		return ret;
	hsaqm_log_debug("queue %u created on gpu 0x%x (type %u, priority %u)", args->queue_id,
			args->gpu_id, args->queue_type, args->queue_priority);
	return 0;
}

int hsaqm_kfd_queue_destroy(struct hsaqm_kfd *kfd, uint32_t queue_id)
{
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = queue_id };
	int ret;

	if (!kfd)
		return -EINVAL;
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args);
	return ret < 0 ? ret : 0;
}

int hsaqm_kfd_queue_update(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			   uint32_t ring_size, uint32_t percentage, uint32_t priority)
{
	struct hsaqm_kfd_update_queue_args args = {
		.ring_base_address = ring_base,
		.queue_id = queue_id,
		.ring_size = ring_size,
		.queue_percentage = percentage,
		.queue_priority = priority,
	};
	int ret;

	if (!kfd || !queue_knobs_valid(percentage, priority, ring_size))
		return -EINVAL;
	if ((percentage & HSAQM_KFD_QUEUE_PERCENTAGE_MASK) == 0)
		hsaqm_log_info("queue %u set inactive (percentage 0): the KFD unmaps every dynamic "
			       "queue of the device to do it", queue_id);
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &args);
	return ret < 0 ? ret : 0;
}

int hsaqm_kfd_queue_set_cu_mask(struct hsaqm_kfd *kfd, uint32_t queue_id, const uint32_t *mask,
				uint32_t num_bits)
{
	struct hsaqm_kfd_set_cu_mask_args args = {
		.queue_id = queue_id,
		.num_cu_mask = num_bits,
		.cu_mask_ptr = (uint64_t)(uintptr_t)mask,
	};
	int ret;

	if (!kfd || !mask || num_bits == 0 || num_bits % 32)
		return -EINVAL;
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_SET_CU_MASK, &args);
	return ret < 0 ? ret : 0;
}

int hsaqm_kfd_queue_get_wave_state(struct hsaqm_kfd *kfd, uint32_t queue_id, void *ctl_stack,
				   uint32_t *ctl_stack_used, uint32_t *save_area_used)
{
	struct hsaqm_kfd_get_queue_wave_state_args args = {
		.ctl_stack_address = (uint64_t)(uintptr_t)ctl_stack,
		.queue_id = queue_id,
	};
	int ret;

	if (!kfd || !ctl_stack)
		return -EINVAL;
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_GET_QUEUE_WAVE_STATE, &args);
	if (ret < 0)
		return ret;
	if (ctl_stack_used)
		*ctl_stack_used = args.ctl_stack_used_size;
	if (save_area_used)
		*save_area_used = args.save_area_used_size;
	return 0;
}
