// SPDX-License-Identifier: MIT
/*
 * kernels.c - the spin kernel the live checks run. On hardware: a code object compiled at
 * build time from kernels/spin.cl for the configured targets (embedded in the binary), or one
 * the user compiled (--kernel-dir), loaded through the HSA table. On the model: a model kernel
 * whose workgroup callback computes exactly what the real kernel computes, so the checks
 * verify results the same way on both.
 *
 * Each work-item runs `iters` steps of a 32-bit LCG from seed ^ global id and stores the
 * final state. The host checks every value with a jump-ahead in O(log iters): a wave whose
 * registers CWSR lost or corrupted while suspended gives a wrong value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hsaqm-sim/sim.h"
#include "probe_internal.h"

uint32_t probe_lcg_jump(uint32_t x, uint64_t n)
{
	/* Compose the affine map x -> a x + c with itself by squaring: (A, C) after n steps. */
	uint32_t acc_a = 1, acc_c = 0, a = PROBE_LCG_A, c = PROBE_LCG_C;

	while (n) {
		if (n & 1) {
			acc_a = acc_a * a;
			acc_c = acc_c * a + c;
		}
		c = c * a + c;
		a = a * a;
		n >>= 1;
	}
	return acc_a * x + acc_c;
}

/* The model kernel's workgroup: what spin.cl computes, for the work-items of one workgroup. */
static void model_spin_wg(void *arg, uint64_t dispatch_id, uint32_t wg_index, void *kernarg)
{
	const struct probe_spin_args *a = kernarg;
	uint32_t *out;

	(void)arg;
	(void)dispatch_id;
	if (!a || !a->out || !a->wg_size)
		return;
	out = (uint32_t *)(uintptr_t)a->out;
	for (uint32_t i = 0; i < a->wg_size; i++) {
		uint32_t gid = wg_index * a->wg_size + i;

		out[gid] = probe_lcg_jump(a->seed ^ gid, a->iters);
	}
}

static const struct probe_code_object *embedded(const char *gfx)
{
	for (unsigned int i = 0; i < probe_n_code_objects; i++)
		if (!strcmp(probe_code_objects[i].target, gfx))
			return &probe_code_objects[i];
	return NULL;
}

static bool dir_file(const char *dir, const char *gfx, char *path, size_t len)
{
	struct stat st;

	if (!dir || !*dir)
		return false;
	snprintf(path, len, "%s/spin-%s.hsaco", dir, gfx);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool probe_kernel_available(const struct hsaqm_probe_env *env, const char *kernel_dir,
			    const char *gfx, char *text, size_t len)
{
	char path[512], built[160] = "";

	if (env->sim) {
		snprintf(text, len, "model kernel (the model runs no code objects)");
		return true;
	}
	if (dir_file(kernel_dir, gfx, path, sizeof(path))) {
		snprintf(text, len, "%s (--kernel-dir)", path);
		return true;
	}
	if (embedded(gfx)) {
		snprintf(text, len, "embedded %s code object (%s)", gfx, probe_kernels_compiler);
		return true;
	}
	for (unsigned int i = 0; i < probe_n_code_objects; i++) {
		size_t l = strlen(built);

		snprintf(built + l, sizeof(built) - l, "%s%s", l ? " " : "",
			 probe_code_objects[i].target);
	}
	snprintf(text, len,
		 "no device kernel for %s (this build has: %s%s%s)", gfx,
		 *built ? built : "none", *probe_kernels_missing ? "; " : "",
		 probe_kernels_missing);
	return false;
}

static int read_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	*data = malloc((size_t)n);
	if (!*data) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(*data, 1, (size_t)n, f) != (size_t)n) {
		free(*data);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*size = (size_t)n;
	return 0;
}

static int load_code_object(const struct probe_hsa *h, struct hsaqm_hsa_agent agent,
			    const void *data, size_t size, struct probe_kernel *k, char *why,
			    size_t why_len)
{
	uint64_t symbol = 0;
	hsaqm_hsa_status_t st;

	if (!h->reader_from_memory || !h->executable_create_alt || !h->load_agent_code_object ||
	    !h->get_symbol_by_name) {
		snprintf(why, why_len, "the HSA runtime cannot load code objects (table too old)");
		return -EIO;
	}
	st = h->reader_from_memory(data, size, &k->reader);
	if (!st)
		st = h->executable_create_alt(PROBE_HSA_PROFILE_BASE,
					      PROBE_HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
					      &k->exe);
	if (!st)
		st = h->load_agent_code_object(k->exe, agent, k->reader, NULL, NULL);
	if (!st)
		st = h->executable_freeze(k->exe, NULL);
	if (!st)
		st = h->get_symbol_by_name(k->exe, "hsaqm_probe_spin.kd", &agent, &symbol);
	if (!st)
		st = h->symbol_get_info(symbol, PROBE_HSA_SYMBOL_INFO_KERNEL_OBJECT,
					&k->kernel_object);
	if (!st)
		st = h->symbol_get_info(symbol, PROBE_HSA_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
					&k->kernarg_size);
	if (!st)
		st = h->symbol_get_info(symbol, PROBE_HSA_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
					&k->group_size);
	if (!st)
		st = h->symbol_get_info(symbol, PROBE_HSA_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
					&k->private_size);
	if (st) {
		snprintf(why, why_len, "the HSA runtime refused the spin code object (status 0x%x)",
			 st);
		return -EIO;
	}
	return 0;
}

int probe_kernel_load(const struct hsaqm_probe_env *env, const struct probe_hsa *h,
		      struct hsaqm_hsa_agent agent, const char *gfx, const char *kernel_dir,
		      uint64_t model_wg_ns, struct probe_kernel *k, char *why, size_t why_len)
{
	char path[512];
	int err;

	memset(k, 0, sizeof(*k));
	if (env->sim) {
		struct hsaqm_sim_kernel_desc d = {
			.name = "hsaqm_probe_spin",
			.duration_ns = model_wg_ns,
			.dist = HSAQM_SIM_DIST_FIXED,
			.waves_per_wg = 1,
			.wg_callback = model_spin_wg,
		};

		err = hsaqm_sim_kernel_register(env->sim, &d, &k->kernel_object);
		if (err) {
			snprintf(why, why_len, "the model refused the spin kernel: %s",
				 probe_errname(err));
			return err;
		}
		k->kernarg_size = sizeof(struct probe_spin_args);
		k->model = true;
		k->model_wg_ns = model_wg_ns;
		snprintf(k->what, sizeof(k->what), "model kernel (%llu us per workgroup)",
			 (unsigned long long)(model_wg_ns / 1000));
		return 0;
	}
	if (dir_file(kernel_dir, gfx, path, sizeof(path))) {
		unsigned char *data = NULL;
		size_t size = 0;

		err = read_file(path, &data, &size);
		if (err) {
			snprintf(why, why_len, "cannot read %s: %s", path, probe_errname(err));
			return err;
		}
		err = load_code_object(h, agent, data, size, k, why, why_len);
		free(data);
		probe_strlcpy(k->what, path, sizeof(k->what));
	} else {
		const struct probe_code_object *co = embedded(gfx);

		if (!co) {
			probe_kernel_available(env, kernel_dir, gfx, why, why_len);
			return -ENOENT;
		}
		err = load_code_object(h, agent, co->data, co->size, k, why, why_len);
		snprintf(k->what, sizeof(k->what), "embedded %s code object", gfx);
	}
	if (!err && k->kernarg_size < sizeof(struct probe_spin_args))
		k->kernarg_size = sizeof(struct probe_spin_args);
	return err;
}

void probe_kernel_unload(const struct probe_hsa *h, struct probe_kernel *k)
{
	if (!k || k->model)
		return;
	if (k->exe && h->executable_destroy)
		h->executable_destroy(k->exe);
	if (k->reader && h->reader_destroy)
		h->reader_destroy(k->reader);
	k->exe = k->reader = 0;
}
