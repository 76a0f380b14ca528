// SPDX-License-Identifier: MIT
/*
 * drm.c - the model's DRM render nodes (/dev/dri/renderD128 + n): what libdrm_amdgpu's
 * amdgpu_device_initialize() and a thunk issue on them (facts from the amdgpu uapi,
 * amdgpu_drm.h, and amdgpu_kms.c's answers):
 *   DRM_IOCTL_VERSION            "amdgpu" 3.x (libdrm_amdgpu refuses any other major)
 *   DRM_IOCTL_GET_CAP            the few capabilities a render node reports
 *   DRM_IOCTL_AMDGPU_INFO        device info (ids, family, CU layout, VA range), memory and
 *                                VRAM/GTT sizes, firmware versions, HW IP info, register
 *                                reads (zeros: the model has no registers), accel working
 *   DRM_IOCTL_GEM_CLOSE          nothing to close: memory objects are the KFD's
 * mmap() at a memory object's offset maps its model memory (sim/kfd_face_mem.c). Anything
 * else is -EINVAL, logged and counted (kfdemu_unknown_ioctl).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <drm.h>
#include <amdgpu_drm.h>

#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "sim_internal.h"

/* amdgpu's KMS interface version presented (assumption: the 6.x kernels' 3.5x line). */
#define DRM_AMDGPU_MAJOR 3
#define DRM_AMDGPU_MINOR 57
/* gfx9 (GC 9.x, MI300 included) is AMDGPU_FAMILY_AI. */
#define DRM_FAMILY_AI 141u
/* GPU timestamp counter: 100 MHz on gfx9 (amdgpu gfx_v9 get_gpu_clock_counter; in kHz). */
#define DRM_GPU_COUNTER_KHZ 100000u
/* HBM3 (AMDGPU_VRAM_TYPE_HBM): the MI300 family's memory. */
#define DRM_VRAM_TYPE_HBM 6u
/* The GPU VA range libdrm manages for the render node (gfx9: 48-bit, split in two halves). */
#define DRM_VA_OFFSET (1ull << 21)
#define DRM_VA_MAX (1ull << 47)
#define DRM_HIGH_VA_OFFSET 0xffff800000000000ull
#define DRM_HIGH_VA_MAX 0xffffffffffffffffull

static int copy_out(const struct drm_amdgpu_info *in, const void *src, size_t size)
{
	void *dst = (void *)(uintptr_t)in->return_pointer;

	if (!dst)
		return -EFAULT;
	/* The kernel copies min(its size, the caller's): older and newer callers both work. */
	memset(dst, 0, in->return_size);
	memcpy(dst, src, size < in->return_size ? size : in->return_size);
	return 0;
}

static int dev_info(unsigned int dev, const struct drm_amdgpu_info *in)
{
	struct hsaqm_sim *sim = kfdemu_sim();
	const struct sim_profile *pr = sim ? sim_device_profile(sim, dev) : NULL;
	struct drm_amdgpu_info_device d;
	unsigned int se, sh, cu;

	if (!pr)
		return -ENODEV;
	memset(&d, 0, sizeof(d));
	d.device_id = pr->device_id;
	d.family = DRM_FAMILY_AI;
	/* One shader engine per XCC's arrays as the topology counts them (array_count 16). */
	d.num_shader_engines = 4;
	d.num_shader_arrays_per_engine = 1;
	d.gpu_counter_freq = DRM_GPU_COUNTER_KHZ;
	d.max_engine_clock = (uint64_t)pr->max_engine_clk_mhz * 1000u;
	d.max_memory_clock = 1300000u; /* kHz: assumption, as the memory bank's clock */
	d.cu_active_number = pr->cu_count;
	/* Every CU of the profile active, spread over the engines as the counts say. */
	se = d.num_shader_engines; /* assumption: 4 x 20 CUs, as the MI308X's XCCs */
	cu = pr->cu_count / se;
	for (unsigned int e = 0; e < se && e < 4; e++)
		for (sh = 0; sh < 1; sh++)
			d.cu_bitmap[e][sh] = cu >= 32 ? 0xffffffffu : (1u << cu) - 1u;
	d.cu_ao_mask = d.cu_bitmap[0][0];
	d.num_cu_per_sh = cu;
	d.wave_front_size = pr->wave_front_size;
	d.num_shader_visible_vgprs = 512;
	d.num_tcc_blocks = 16;
	d.virtual_address_offset = DRM_VA_OFFSET;
	d.virtual_address_max = DRM_VA_MAX;
	d.virtual_address_alignment = 4096;
	d.pte_fragment_size = 2u << 20;
	d.gart_page_size = 4096;
	d.vram_type = DRM_VRAM_TYPE_HBM;
	d.vram_bit_width = 8192;
	d.high_va_offset = DRM_HIGH_VA_OFFSET;
	d.high_va_max = DRM_HIGH_VA_MAX;
	return copy_out(in, &d, sizeof(d));
}

static int info(unsigned int dev, struct drm_amdgpu_info *in)
{
	struct hsaqm_sim *sim = kfdemu_sim();
	uint64_t mem = sim ? sim_mem_size(sim) : 0;

	switch (in->query) {
	case AMDGPU_INFO_ACCEL_WORKING: {
		uint32_t one = 1;

		return copy_out(in, &one, sizeof(one));
	}
	case AMDGPU_INFO_DEV_INFO:
		return dev_info(dev, in);
	case AMDGPU_INFO_VRAM_GTT: {
		struct drm_amdgpu_info_vram_gtt v = {
			.vram_size = mem, .vram_cpu_accessible_size = mem, .gtt_size = mem,
		};

		return copy_out(in, &v, sizeof(v));
	}
	case AMDGPU_INFO_MEMORY: {
		struct drm_amdgpu_memory_info m;

		memset(&m, 0, sizeof(m));
		m.vram.total_heap_size = m.vram.usable_heap_size = m.vram.max_allocation = mem;
		m.cpu_accessible_vram = m.vram;
		m.gtt = m.vram;
		return copy_out(in, &m, sizeof(m));
	}
	case AMDGPU_INFO_FW_VERSION: {
		const struct sim_profile *pr = sim ? sim_device_profile(sim, dev) : NULL;
		struct drm_amdgpu_info_firmware fw = { 0 };

		/* MEC and SDMA firmware as captured (fw_version, sdma_fw_version); others 0. */
		if (pr && in->query_fw.fw_type == AMDGPU_INFO_FW_GFX_MEC)
			fw.ver = pr->fw_version;
		return copy_out(in, &fw, sizeof(fw));
	}
	case AMDGPU_INFO_HW_IP_COUNT: {
		/* One compute ring type instance; no graphics, video or display engines. */
		uint32_t n = in->query_hw_ip.type == AMDGPU_HW_IP_COMPUTE ||
			     in->query_hw_ip.type == AMDGPU_HW_IP_DMA;

		return copy_out(in, &n, sizeof(n));
	}
	case AMDGPU_INFO_HW_IP_INFO: {
		struct drm_amdgpu_info_hw_ip ip = { 0 };

		if (in->query_hw_ip.type == AMDGPU_HW_IP_COMPUTE) {
			ip.hw_ip_version_major = 9;
			ip.hw_ip_version_minor = 4;
			ip.available_rings = 0xff;
			ip.ib_start_alignment = 32;
			ip.ib_size_alignment = 32;
		}
		return copy_out(in, &ip, sizeof(ip));
	}
	case AMDGPU_INFO_READ_MMR_REG: {
		/* Registers are not modelled: every register read is 0 (count dwords). */
		uint32_t n = in->read_mmr_reg.count;
		uint32_t zero[64] = { 0 };

		if (n > 64)
			return -EINVAL;
		return copy_out(in, zero, n * sizeof(uint32_t));
	}
	case AMDGPU_INFO_VRAM_USAGE:
	case AMDGPU_INFO_GTT_USAGE:
	case AMDGPU_INFO_VIS_VRAM_USAGE: {
		uint64_t used = sim ? mem - sim_mem_available(sim) : 0;

		return copy_out(in, &used, sizeof(used));
	}
	default:
		kfdemu_unknown_ioctl("drm amdgpu info", 0x10000ul + in->query);
		return -EINVAL;
	}
}

static int version(struct drm_version *v)
{
	static const char name[] = "amdgpu", date[] = "20150101", desc[] = "AMD GPU";

	v->version_major = DRM_AMDGPU_MAJOR;
	v->version_minor = DRM_AMDGPU_MINOR;
	v->version_patchlevel = 0;
	/* drmGetVersion() asks twice: lengths first, then with buffers of those lengths. */
	if (v->name && v->name_len)
		memcpy(v->name, name, v->name_len < sizeof(name) - 1 ? v->name_len : sizeof(name) - 1);
	if (v->date && v->date_len)
		memcpy(v->date, date, v->date_len < sizeof(date) - 1 ? v->date_len : sizeof(date) - 1);
	if (v->desc && v->desc_len)
		memcpy(v->desc, desc, v->desc_len < sizeof(desc) - 1 ? v->desc_len : sizeof(desc) - 1);
	v->name_len = sizeof(name) - 1;
	v->date_len = sizeof(date) - 1;
	v->desc_len = sizeof(desc) - 1;
	return 0;
}

int kfdemu_drm_ioctl(unsigned int minor, unsigned long request, void *arg)
{
	int dev = kfdemu_render_dev(minor);

	if (dev < 0)
		return -ENODEV;
	if (!arg)
		return -EFAULT;
	if (request == DRM_IOCTL_VERSION)
		return version(arg);
	if (request == DRM_IOCTL_AMDGPU_INFO)
		return info((unsigned int)dev, arg);
	if (request == DRM_IOCTL_GET_CAP) {
		struct drm_get_cap *c = arg;

		/* A render node: PRIME import/export and syncobjs, nothing of display. */
		switch (c->capability) {
		case DRM_CAP_PRIME:
			c->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT;
			return 0;
		case DRM_CAP_SYNCOBJ:
		case DRM_CAP_SYNCOBJ_TIMELINE:
			c->value = 1;
			return 0;
		default:
			return -EINVAL; /* what drm_getcap answers for an unknown capability */
		}
	}
	if (request == DRM_IOCTL_GEM_CLOSE)
		return 0; /* the KFD owns every memory object; its free ioctl releases them */
	kfdemu_unknown_ioctl("drm", request);
	return -EINVAL;
}

void *kfdemu_drm_mmap(unsigned int minor, void *addr, size_t len, int prot, int flags,
		      off_t offset)
{
	struct hsaqm_sim *sim = kfdemu_sim();

	if (!sim || kfdemu_render_dev(minor) < 0) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	return sim_kfd_face_render_mmap(sim, addr, len, prot, flags, (uint64_t)offset);
}
