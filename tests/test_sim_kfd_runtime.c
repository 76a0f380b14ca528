// SPDX-License-Identifier: MIT
/*
 * The model KFD's families a runtime's thunk needs (sim/kfd_face_mem.c, kfd_face_event.c):
 * apertures, memory objects and their mmap offsets, the GPU's view of them, events and the
 * end-of-pipe interrupt, the small process settings; each with the errno amdkfd gives.
 * Through kfd-ioctl's transport seam, as the emulated /dev/kfd uses the face.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "t_cunit.h"
#include "t_time.h"

struct env {
	struct hsaqm_sim *sim;
	const struct hsaqm_kfd_transport *tp;
	struct hsaqm_kfd *kfd;
	uint32_t gpu_id;
};

static void env_open(struct env *e)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };

	memset(e, 0, sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &e->sim), 0);
	e->tp = hsaqm_sim_kfd_transport(e->sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->tp);
	e->gpu_id = sim_kfd_gpu_id(e->sim, 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e->tp, &e->kfd), 0);
}

static void env_close(struct env *e)
{
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e->kfd), 0);
	hsaqm_sim_destroy(e->sim);
}

static int acquire_vm(struct env *e)
{
	struct hsaqm_kfd_acquire_vm_args a = { .drm_fd = 3, .gpu_id = e->gpu_id };

	return hsaqm_kfd_ioctl(e->kfd, HSAQM_KFD_IOC_ACQUIRE_VM, &a);
}

static int alloc(struct env *e, uint64_t va, uint64_t size, uint32_t flags,
		 struct hsaqm_kfd_alloc_memory_of_gpu_args *a)
{
	memset(a, 0, sizeof(*a));
	a->va_addr = va;
	a->size = size;
	a->gpu_id = e->gpu_id;
	a->flags = flags;
	return hsaqm_kfd_ioctl(e->kfd, HSAQM_KFD_IOC_ALLOC_MEMORY_OF_GPU, a);
}

static void test_apertures_are_gfx9s_and_the_count_comes_first(void)
{
	struct hsaqm_kfd_process_device_apertures ap[4];
	struct hsaqm_kfd_get_process_apertures_new_args a = { 0 };
	struct env e;

	env_open(&e);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
	CU_ASSERT_EQUAL(a.num_of_nodes, 1);
	a.kfd_process_device_apertures_ptr = (uint64_t)(uintptr_t)ap;
	a.num_of_nodes = 4;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
	CU_ASSERT_EQUAL(a.num_of_nodes, 1);
	CU_ASSERT_EQUAL(ap[0].gpu_id, e.gpu_id);
	CU_ASSERT_EQUAL(ap[0].lds_base, 1ull << 48);
	CU_ASSERT_EQUAL(ap[0].scratch_base, 2ull << 48);
	CU_ASSERT(ap[0].gpuvm_limit < (1ull << 47)); /* canonical: the SVM aperture */
	env_close(&e);
}

static void test_memory_needs_the_vm_and_one_kind(void)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args a;
	struct env e;

	env_open(&e);
	/* kfd_bind_process_to_device(): no VM acquired yet. */
	CU_ASSERT_EQUAL(alloc(&e, 0x100000000ull, 4096, HSAQM_KFD_ALLOC_MEM_VRAM, &a), -EINVAL);
	CU_ASSERT_EQUAL(acquire_vm(&e), 0);
	CU_ASSERT_EQUAL(alloc(&e, 0x100000000ull, 4096,
			      HSAQM_KFD_ALLOC_MEM_VRAM | HSAQM_KFD_ALLOC_MEM_GTT, &a), -EINVAL);
	CU_ASSERT_EQUAL(alloc(&e, 0x100000000ull, 4096, 0, &a), -EINVAL);
	/* The doorbell object is exactly the process's doorbell slice, the MMIO one a page. */
	CU_ASSERT_EQUAL(alloc(&e, 0x100000000ull, 4096, HSAQM_KFD_ALLOC_MEM_DOORBELL, &a), -EINVAL);
	CU_ASSERT_EQUAL(alloc(&e, 0x100000000ull, 8192, HSAQM_KFD_ALLOC_MEM_MMIO_REMAP, &a), -EINVAL);
	struct hsaqm_kfd_alloc_memory_of_gpu_args bad = { .gpu_id = e.gpu_id ^ 0x5a5a, .size = 4096,
							  .flags = HSAQM_KFD_ALLOC_MEM_VRAM };

	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_ALLOC_MEMORY_OF_GPU, &bad), -EINVAL);
	env_close(&e);
}

/* A VRAM object mapped at a chosen address is the memory the GPU's view reaches. */
static void test_vram_object_maps_where_asked_and_the_gpu_sees_the_cpus_writes(void)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args a;
	struct hsaqm_kfd_free_memory_of_gpu_args f;
	struct env e;
	uint64_t base, size;
	void *host, *want, *got;

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(acquire_vm(&e), 0);
	/* Reserve an address range as a thunk does, then map the object into it. */
	want = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(want, MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(alloc(&e, (uint64_t)(uintptr_t)want, 1 << 20,
				    HSAQM_KFD_ALLOC_MEM_VRAM | HSAQM_KFD_ALLOC_MEM_WRITABLE, &a), 0);
	CU_ASSERT_EQUAL(a.handle >> 32, e.gpu_id);
	CU_ASSERT_EQUAL(a.mmap_offset & 4095, 0);
	got = sim_kfd_face_render_mmap(e.sim, want, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_FIXED, a.mmap_offset);
	CU_ASSERT_EQUAL_FATAL(got, want);
	memcpy(want, "hsaqm", 6);
	CU_ASSERT_EQUAL(sim_kfd_face_gpu_object(e.sim, (uint64_t)(uintptr_t)want + 100, &base, &size,
						&host), 0);
	CU_ASSERT_EQUAL(base, (uint64_t)(uintptr_t)want);
	CU_ASSERT_EQUAL(size, 1 << 20);
	CU_ASSERT_STRING_EQUAL((char *)host, "hsaqm");
	/* Past the object: not the GPU's memory. */
	CU_ASSERT_EQUAL(sim_kfd_face_gpu_object(e.sim, (uint64_t)(uintptr_t)want + (1 << 20), &base,
						&size, &host), -ENOENT);
	/* An offset that names no object. */
	CU_ASSERT_EQUAL(sim_kfd_face_render_mmap(e.sim, NULL, 4096, PROT_READ, MAP_SHARED,
						 a.mmap_offset + (1ull << 40)), MAP_FAILED);
	f.handle = a.handle;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_FREE_MEMORY_OF_GPU, &f), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_FREE_MEMORY_OF_GPU, &f), -EINVAL);
	munmap(want, 1 << 20);
	env_close(&e);
}

static void test_userptr_is_the_runtimes_own_pages(void)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args a;
	struct env e;
	uint64_t base, size;
	void *host;
	char *mine = aligned_alloc(4096, 8192);

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(acquire_vm(&e), 0);
	memset(&a, 0, sizeof(a));
	a.va_addr = 0x200000000ull; /* a GPU address apart from the CPU one */
	a.size = 8192;
	a.gpu_id = e.gpu_id;
	a.flags = HSAQM_KFD_ALLOC_MEM_USERPTR;
	a.mmap_offset = (uint64_t)(uintptr_t)mine;
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_ALLOC_MEMORY_OF_GPU, &a), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_gpu_object(e.sim, 0x200000010ull, &base, &size, &host), 0);
	CU_ASSERT_PTR_EQUAL(host, mine);
	/* Unaligned user memory is refused. */
	a.mmap_offset += 8;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -EINVAL);
	env_close(&e);
	free(mine);
}

static void test_map_counts_devices_and_refuses_unknown_ones(void)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args a;
	struct hsaqm_kfd_map_memory_to_gpu_args m = { 0 };
	struct env e;
	uint32_t ids[2];

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(acquire_vm(&e), 0);
	CU_ASSERT_EQUAL_FATAL(alloc(&e, 0x300000000ull, 4096, HSAQM_KFD_ALLOC_MEM_GTT, &a), 0);
	ids[0] = e.gpu_id;
	ids[1] = e.gpu_id ^ 0x5a5a;
	m.handle = a.handle;
	m.device_ids_array_ptr = (uint64_t)(uintptr_t)ids;
	m.n_devices = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_MAP_MEMORY_TO_GPU, &m), 0);
	CU_ASSERT_EQUAL(m.n_success, 1);
	m.n_devices = 2; /* resumes at n_success: the second id is unknown */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_MAP_MEMORY_TO_GPU, &m), -EINVAL);
	CU_ASSERT_EQUAL(m.n_success, 1);
	m.n_success = 0;
	m.n_devices = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UNMAP_MEMORY_FROM_GPU, &m), 0);
	env_close(&e);
}

/* Signal events: ids are slots of the given page; the interrupt signals a written slot. */
static void test_signal_event_wakes_its_waiter_when_the_cp_writes_its_slot(void)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args a;
	struct hsaqm_kfd_create_event_args c;
	struct hsaqm_kfd_event_data d;
	struct hsaqm_kfd_wait_events_args w;
	struct env e;
	uint64_t base, size;
	void *page;

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(acquire_vm(&e), 0);
	CU_ASSERT_EQUAL_FATAL(alloc(&e, 0x400000000ull, 32768, HSAQM_KFD_ALLOC_MEM_GTT, &a), 0);
	/* The page comes with the first event, whatever its type (libhsakmt's way). */
	memset(&c, 0, sizeof(c));
	c.event_page_offset = a.handle;
	c.event_type = HSAQM_KFD_EVENT_TYPE_MEMORY;
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_EVENT, &c), 0);
	memset(&c, 0, sizeof(c));
	c.event_type = HSAQM_KFD_EVENT_TYPE_SIGNAL;
	c.auto_reset = 1;
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_EVENT, &c), 0);
	CU_ASSERT_EQUAL(c.event_id, c.event_slot_index);
	CU_ASSERT_NOT_EQUAL(c.event_page_offset, 0); /* the slot index is valid */
	CU_ASSERT_EQUAL_FATAL(sim_kfd_face_gpu_object(e.sim, 0x400000000ull, &base, &size, &page),
			      0);
	uint64_t *slot = (uint64_t *)page + c.event_slot_index;

	CU_ASSERT_EQUAL(*slot, UINT64_MAX);
	/* Nothing signaled: a 0 ms wait times out. */
	memset(&d, 0, sizeof(d));
	d.event_id = c.event_id;
	memset(&w, 0, sizeof(w));
	w.events_ptr = (uint64_t)(uintptr_t)&d;
	w.num_events = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_TIMEOUT);
	/* An interrupt for an unwritten slot signals nothing. */
	CU_ASSERT_EQUAL(sim_kfd_face_signal_interrupt(e.sim, c.event_id), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_TIMEOUT);
	/* The CP writes the id into the slot, then interrupts: the wait completes, auto-reset. */
	*slot = c.event_id;
	CU_ASSERT_EQUAL(sim_kfd_face_signal_interrupt(e.sim, c.event_id), 0);
	CU_ASSERT_EQUAL(*slot, UINT64_MAX);
	w.timeout = 1000;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_COMPLETE);
	uint64_t age = d.last_event_age;

	CU_ASSERT(age > 1);
	w.timeout = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_TIMEOUT); /* consumed */
	/* An older age than the event's: already signaled since that look (1.9's rule). */
	d.last_event_age = age - 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_COMPLETE);
	/* A second page is refused; an unknown id fails the wait. */
	memset(&c, 0, sizeof(c));
	c.event_page_offset = a.handle;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_EVENT, &c), -EINVAL);
	d.event_id = 4000;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), -EINVAL);
	CU_ASSERT_EQUAL(sim_kfd_face_signal_interrupt(e.sim, 4000), -ENOENT);
	env_close(&e);
}

struct waiter {
	struct env *e;
	uint32_t id;
	int rc;
	uint32_t result;
};

static void *wait_thread(void *arg)
{
	struct waiter *wt = arg;
	struct hsaqm_kfd_event_data d = { .event_id = wt->id };
	struct hsaqm_kfd_wait_events_args w = {
		.events_ptr = (uint64_t)(uintptr_t)&d, .num_events = 1, .timeout = 0xffffffffu,
	};

	wt->rc = hsaqm_kfd_ioctl(wt->e->kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w);
	wt->result = w.wait_result;
	return NULL;
}

/* SET_EVENT from another thread ends an infinite wait (the face's lock is released there). */
static void test_set_event_ends_an_infinite_wait(void)
{
	struct hsaqm_kfd_create_event_args c = { .event_type = HSAQM_KFD_EVENT_TYPE_SIGNAL,
						 .auto_reset = 1 };
	struct hsaqm_kfd_event_id_args s = { 0 };
	struct waiter wt;
	pthread_t t;
	struct env e;

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_EVENT, &c), 0);
	/* No page given: the KFD allocates one and gives its mmap offset. */
	CU_ASSERT_EQUAL(c.event_page_offset, HSAQM_KFD_MMAP_TYPE_EVENTS);
	wt = (struct waiter){ .e = &e, .id = c.event_id, .rc = -1 };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &wt), 0);
	/* Another ioctl goes through while the waiter sleeps. */
	struct hsaqm_kfd_get_version_args v;

	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_VERSION, &v), 0);
	s.event_id = c.event_id;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_EVENT, &s), 0);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(wt.rc, 0);
	CU_ASSERT_EQUAL(wt.result, HSAQM_KFD_WAIT_COMPLETE);
	env_close(&e);
}

/*
 * A signal goes to the waits registered on the event when it is set, as the KFD's set_event
 * does: a wait that starts after it finds nothing (an auto-reset event). ROCr's queue
 * destructor sets the queue's inactive signal while its async thread waits on that event,
 * then waits on the same event itself; when the later wait could take the signal, the async
 * thread slept on and the destructor hung (the rocm-5.2 row, one run in about twenty).
 */
static void test_a_set_event_goes_to_the_waits_registered_not_to_a_later_one(void)
{
	struct hsaqm_kfd_create_event_args c = { .event_type = HSAQM_KFD_EVENT_TYPE_SIGNAL,
						 .auto_reset = 1 };
	struct hsaqm_kfd_event_id_args s = { 0 };
	struct hsaqm_kfd_event_data d;
	struct hsaqm_kfd_wait_events_args w;
	struct waiter wt;
	pthread_t t;
	struct env e;

	env_open(&e);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_EVENT, &c), 0);
	wt = (struct waiter){ .e = &e, .id = c.event_id, .rc = -1 };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &wt), 0);
	CU_ASSERT_FATAL(T_UNTIL(sim_kfd_face_event_waiters(e.sim, c.event_id) == 1,
				10 * T_S));
	s.event_id = c.event_id;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_EVENT, &s), 0);
	/* This thread's wait, started after the set, finds the event unsignaled. */
	memset(&d, 0, sizeof(d));
	d.event_id = c.event_id;
	memset(&w, 0, sizeof(w));
	w.events_ptr = (uint64_t)(uintptr_t)&d;
	w.num_events = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	if (w.wait_result != HSAQM_KFD_WAIT_TIMEOUT) {
		printf("\n  the later wait took the signal meant for the registered one\n");
		/* Free the registered waiter, which the lost signal left asleep. */
		CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_EVENT, &s), 0);
	}
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_TIMEOUT);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(wt.rc, 0);
	CU_ASSERT_EQUAL(wt.result, HSAQM_KFD_WAIT_COMPLETE);
	CU_ASSERT_EQUAL(sim_kfd_face_event_waiters(e.sim, c.event_id), 0);
	/* Set with nobody waiting: it stays for the next wait, which consumes it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_EVENT, &s), 0);
	d.last_event_age = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_COMPLETE);
	d.last_event_age = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_WAIT_EVENTS, &w), 0);
	CU_ASSERT_EQUAL(w.wait_result, HSAQM_KFD_WAIT_TIMEOUT);
	env_close(&e);
}

static void test_small_settings_answer_as_the_kfd(void)
{
	struct hsaqm_kfd_set_xnack_mode_args x = { .xnack_enabled = -1 };
	struct hsaqm_kfd_get_clock_counters_args ck = { 0 };
	struct hsaqm_kfd_set_memory_policy_args mp = { 0 };
	struct hsaqm_kfd_get_tile_config_args tc = { 0 };
	struct hsaqm_kfd_get_available_memory_args av = { 0 };
	struct env e;

	env_open(&e);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_XNACK_MODE, &x), 0);
	CU_ASSERT_EQUAL(x.xnack_enabled, 0);
	ck.gpu_id = e.gpu_id;
	struct timespec b0, b1;

	/* The system counter is CLOCK_BOOTTIME, what ROCr's own timestamps read. */
	clock_gettime(CLOCK_BOOTTIME, &b0);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_CLOCK_COUNTERS, &ck), 0);
	clock_gettime(CLOCK_BOOTTIME, &b1);
	CU_ASSERT_EQUAL(ck.system_clock_freq, 1000000000ull);
	CU_ASSERT(ck.system_clock_counter >= (uint64_t)b0.tv_sec * 1000000000ull + (uint64_t)b0.tv_nsec);
	CU_ASSERT(ck.system_clock_counter <= (uint64_t)b1.tv_sec * 1000000000ull + (uint64_t)b1.tv_nsec);
	CU_ASSERT(ck.gpu_clock_counter > 0); /* the model's clock: a GPU of this process */
	mp.gpu_id = e.gpu_id;
	mp.default_policy = 2; /* neither coherent nor noncoherent */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_MEMORY_POLICY, &mp), -EINVAL);
	tc.gpu_id = e.gpu_id;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_TILE_CONFIG, &tc), 0);
	CU_ASSERT_NOT_EQUAL(tc.gb_addr_config, 0);
	av.gpu_id = e.gpu_id;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_AVAILABLE_MEMORY, &av), 0);
	CU_ASSERT(av.available > 0);
	/* ROCm's out-of-tree driver's own numbers: -EINVAL as upstream, counted apart. */
	uint8_t buf[40] = { 0 };

	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x82, 40), buf), -EINVAL);
	CU_ASSERT_EQUAL(sim_kfd_face_dkms_only(e.sim), 1);
	CU_ASSERT_EQUAL(sim_kfd_face_unmodelled(e.sim), 0);
	env_close(&e);
}

int main(void)
{
	static const struct t_case cases[] = {
		T_CASE(test_apertures_are_gfx9s_and_the_count_comes_first),
		T_CASE(test_memory_needs_the_vm_and_one_kind),
		T_CASE(test_vram_object_maps_where_asked_and_the_gpu_sees_the_cpus_writes),
		T_CASE(test_userptr_is_the_runtimes_own_pages),
		T_CASE(test_map_counts_devices_and_refuses_unknown_ones),
		T_CASE(test_signal_event_wakes_its_waiter_when_the_cp_writes_its_slot),
		T_CASE(test_set_event_ends_an_infinite_wait),
		T_CASE(test_a_set_event_goes_to_the_waits_registered_not_to_a_later_one),
		T_CASE(test_small_settings_answer_as_the_kfd),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "kfd-runtime-families", NULL, NULL, cases },
		T_SUITES_END,
	};

	return t_run("test-sim-kfd-runtime", suites);
}
