/* SPDX-License-Identifier: MIT */
/*
 * Model kernels. A kernel computes nothing: it is a per-workgroup duration (fixed or drawn
 * from a seeded distribution), an occupancy (wave slots per workgroup) and an optional way
 * of proving each workgroup ran exactly once (a host callback, or counters in model memory
 * that work across processes).
 *
 * The handle a dispatch packet carries is the kernel's address in model memory, as a real
 * kernel_object is the address of a kernel descriptor the GPU can read; the packet processor
 * checks it (in model memory, aligned, magic) before it trusts it, and a bad one puts the
 * queue in the error state a GPU reports for an invalid code object.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"

/* xoshiro256**: small, fast, and the same sequence on every machine for a given seed. */
static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

void sim_rng_seed(uint64_t s[4], uint64_t seed)
{
	/* splitmix64 spreads any seed (0 included) over the four words. */
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		s[i] = z ^ (z >> 31);
	}
}

/* Uniform in (0, 1]: never 0, so log() below is finite. */
static double rng_unit(uint64_t s[4])
{
	return ((double)(sim_rng_next(s) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

uint64_t sim_kernel_draw(const struct sim_kernel *k, uint64_t rng[4])
{
	double d;

	switch (k->dist) {
	case HSAQM_SIM_DIST_UNIFORM: {
		uint64_t width = 2 * k->spread_ns + 1;
		int64_t v = (int64_t)k->duration_ns - (int64_t)k->spread_ns +
			    (int64_t)(sim_rng_next(rng) % width);
		return v < 1 ? 1 : (uint64_t)v;
	}
	case HSAQM_SIM_DIST_NORMAL:
		/* Box-Muller; one of the pair is dropped to keep the draw count per workgroup fixed. */
		d = (double)k->duration_ns + (double)k->spread_ns * sqrt(-2.0 * log(rng_unit(rng))) *
						     cos(6.283185307179586 * rng_unit(rng));
		return d < 1.0 ? 1 : d > 1.8e19 ? UINT64_MAX / 2 : (uint64_t)d;
	default:
		return k->duration_ns;
	}
}

int hsaqm_sim_kernel_register(struct hsaqm_sim *sim, const struct hsaqm_sim_kernel_desc *desc,
			      uint64_t *kernel_object)
{
	if (!sim || !desc || !kernel_object || desc->duration_ns == 0 ||
	    (unsigned int)desc->dist > HSAQM_SIM_DIST_NORMAL)
		return -EINVAL;
	/* Every device of a model has the same profile; a workgroup must fit one CU. */
	const struct sim_profile *p = &sim->dev[0]->prof;
	uint32_t waves = desc->waves_per_wg ? desc->waves_per_wg : 1;
	if (waves > p->simd_per_cu * p->max_waves_per_simd) {
		hsaqm_log_err("kernel %s: %u waves per workgroup, a CU holds %u", desc->name ? desc->name : "?",
			      waves, p->simd_per_cu * p->max_waves_per_simd);
		return -EINVAL;
	}
	if ((desc->wg_counters && !desc->wg_counters_len) || (!desc->wg_counters && desc->wg_counters_len))
		return -EINVAL;
	if (desc->wg_counters &&
	    !sim_mem_contains(sim, desc->wg_counters, (size_t)desc->wg_counters_len * sizeof(uint32_t))) {
		hsaqm_log_err("kernel counters must be model memory (hsaqm_sim_mem_alloc)");
		return -EINVAL;
	}
	if (desc->dist != HSAQM_SIM_DIST_FIXED && desc->spread_ns > (uint64_t)INT64_MAX / 4)
		return -EINVAL;
	/* The engine of a device process cannot call into a client: counters cross processes. */
	if (desc->wg_callback && sim->role == SIM_ROLE_CLIENT) {
		hsaqm_log_err("kernel %s: workgroup callbacks do not cross processes (shared mode); "
			      "use wg_counters", desc->name ? desc->name : "?");
		return -EINVAL;
	}

	struct sim_kernel *k = sim_mem_alloc(sim, sizeof(*k), 64);
	if (!k)
		return -ENOMEM;
	k->waves_per_wg = waves;
	k->duration_ns = desc->duration_ns;
	k->spread_ns = desc->spread_ns;
	k->dist = desc->dist;
	k->counters = desc->wg_counters;
	k->counters_len = desc->wg_counters_len;
	k->wg_callback = desc->wg_callback;
	k->wg_callback_arg = desc->wg_callback_arg;
	snprintf(k->name, sizeof(k->name), "%s", desc->name ? desc->name : "kernel");
	/* Release: a packet processor that finds the magic (acquire) sees a whole kernel. */
	hsaqm_store_release(&k->magic, SIM_KERNEL_MAGIC);
	*kernel_object = (uint64_t)(uintptr_t)k;
	return 0;
}

const struct sim_kernel *sim_kernel_lookup_in(const struct sim_arena *a, uint64_t kernel_object)
{
	struct sim_kernel *k = (struct sim_kernel *)(uintptr_t)kernel_object;

	if (!kernel_object || (kernel_object & 7) || !sim_arena_contains(a, k, sizeof(*k)))
		return NULL;
	/* Acquire: pairs with the release in hsaqm_sim_kernel_register(). */
	if (hsaqm_load_acquire(&k->magic) != SIM_KERNEL_MAGIC)
		return NULL;
	return k;
}
