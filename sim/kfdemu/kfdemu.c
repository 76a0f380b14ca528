// SPDX-License-Identifier: MIT
/*
 * kfdemu.c - the model behind the emulated /dev/kfd: made at the first touch of anything the
 * emulation answers (a device node, the KFD's or amdgpu's sysfs), so a process that never
 * looks at a GPU never makes one; configuration from the environment; the report.
 *
 * The model is in-process (REAL time, scale 1, $HSAQM_KFDEMU_DEVICES GPUs) or, with
 * $HSAQM_SIM_DEVICE set, a client of the shared device process hsaqm-simd, so several
 * processes share one GPU as on a node. Its sysfs tree is the runtime topology
 * (sim/sysfs.c): what a thunk reads must hold together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"
#include "sim_internal.h"
#include "hsaqm-common/text.h"

static struct {
	pthread_mutex_t lock;   /* model creation, the report */
	struct hsaqm_sim *sim;  /* atomic: published complete */
	const char *root;       /* atomic */
	bool failed;            /* said once; later touches fail at once */
	bool shared;
	unsigned int ndev;
	char **report;
	size_t nreport, capreport;
	uint64_t unknown;       /* ioctls the emulation did not know (DRM; the KFD face counts its own) */
	bool atexit_done;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void write_report(void);

/*
 * <tree>/proc/modules: this machine's module list with amdgpu added, as a loaded driver would
 * show (lsmod prints it; rocminfo 5.x checks lsmod's output before it starts the runtime).
 */
static int write_modules(const char *root)
{
	char path[4096], line[512];
	FILE *in, *out;
	int n = snprintf(path, sizeof(path), "%s/proc", root);

	if (n < 0 || (size_t)n >= sizeof(path) || (mkdir(path, 0755) && errno != EEXIST))
		return -errno;
	strncat(path, "/modules", sizeof(path) - strlen(path) - 1);
	out = fopen(path, "w");
	if (!out)
		return -errno;
	/* The real file, past this library's own mapping of the path (we hold g.lock). */
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/modules", O_RDONLY | O_CLOEXEC);

	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !in)
		syscall(SYS_close, fd);
	while (in && fgets(line, sizeof(line), in))
		if (strncmp(line, "amdgpu ", 7))
			fputs(line, out);
	if (in)
		fclose(in);
	/* name size refcount users state address (kernel/module/procfs.c); size: assumption. */
	fputs("amdgpu 19918848 0 - Live 0x0000000000000000\n", out);
	return fclose(out) ? -errno : 0;
}

static int open_model(struct hsaqm_sim **out)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	const char *s = getenv("HSAQM_KFDEMU_DEVICES");
	const char *trace = getenv("HSAQM_KFDEMU_TRACE");

	if (s && *s) {
		unsigned long long n;

		if (hsaqm_parse_uint(s, 10, 1, HSAQM_SIM_MAX_DEVICES, &n)) {
			fprintf(stderr, "hsaqm: HSAQM_KFDEMU_DEVICES=\"%s\" is not 1..%u\n", s,
				HSAQM_SIM_MAX_DEVICES);
			return -EINVAL;
		}
		cfg.num_devices = (unsigned int)n;
	}
	if (trace && *trace)
		cfg.trace_path = trace;
	return hsaqm_sim_open_env(&cfg, out);
}

/* Make the model once; every later caller sees it, or sees the failure. */
static struct hsaqm_sim *model(void)
{
	/* Acquire: pairs with the release below, so the model and its tree are complete. */
	struct hsaqm_sim *sim = hsaqm_load_acquire(&g.sim);
	int err;

	if (sim)
		return sim;
	pthread_mutex_lock(&g.lock);
	if (g.sim || g.failed) {
		sim = g.sim;
		pthread_mutex_unlock(&g.lock);
		return sim;
	}
	err = open_model(&sim);
	if (!err) {
		/* What a runtime reads must be the runtime topology, before the tree exists. */
		err = sim_kfd_face_set_runtime_topology(sim);
		if (!err && !hsaqm_sim_sysfs_root(sim))
			err = -EIO;
		if (!err)
			err = write_modules(hsaqm_sim_sysfs_root(sim));
		if (err)
			hsaqm_sim_destroy(sim);
	}
	if (err) {
		g.failed = true;
		pthread_mutex_unlock(&g.lock);
		fprintf(stderr, "hsaqm: the emulated /dev/kfd has no model (%s): no GPU is presented\n",
			strerror(-err));
		errno = -err;
		return NULL;
	}
	g.shared = getenv("HSAQM_SIM_DEVICE") && *getenv("HSAQM_SIM_DEVICE");
	g.ndev = sim_device_count(sim);
	/* Release: the tree's path before the model that says it exists. */
	hsaqm_store_release(&g.root, hsaqm_sim_sysfs_root(sim));
	hsaqm_store_release(&g.sim, sim);
	if (!g.atexit_done) {
		/* HIP never closes the KFD: the report is written at process exit. */
		atexit(write_report);
		g.atexit_done = true;
	}
	pthread_mutex_unlock(&g.lock);
	kfdemu_report_add("mode %s", g.shared ?
			  "shared (workgroups counted as dispatched: no callbacks across processes)" :
			  "in-process (workgroups counted as the model runs them)");
	return sim;
}

struct hsaqm_sim *kfdemu_sim(void)
{
	return model();
}

const struct hsaqm_kfd_transport *kfdemu_kfd(void)
{
	struct hsaqm_sim *sim = model();

	return sim ? hsaqm_sim_kfd_transport(sim) : NULL;
}

const char *kfdemu_sysfs_root(void)
{
	/* Acquire: pairs with model()'s release of the path. */
	const char *root = hsaqm_load_acquire(&g.root);

	if (root)
		return root;
	/* Acquire: pairs with open_model's release of the root before the model. */
	return model() ? hsaqm_load_acquire(&g.root) : NULL;
}

bool kfdemu_shared(void)
{
	return model() && g.shared;
}

unsigned int kfdemu_devices(void)
{
	return model() ? g.ndev : 0;
}

int kfdemu_render_dev(unsigned int minor)
{
	unsigned int n = kfdemu_devices();

	return minor >= KFDEMU_RENDER_MINOR_BASE && minor - KFDEMU_RENDER_MINOR_BASE < n ?
		       (int)(minor - KFDEMU_RENDER_MINOR_BASE) : -1;
}

void kfdemu_report_add(const char *fmt, ...)
{
	char buf[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&g.lock);
	if (g.nreport == g.capreport) {
		size_t cap = g.capreport ? g.capreport * 2 : 32;
		char **r = realloc(g.report, cap * sizeof(*r));

		if (!r)
			goto out;
		g.report = r;
		g.capreport = cap;
	}
	g.report[g.nreport] = strdup(buf);
	if (g.report[g.nreport])
		g.nreport++;
out:
	pthread_mutex_unlock(&g.lock);
}

void kfdemu_unknown_ioctl(const char *what, unsigned long request)
{
	/* Relaxed: a counter read once at exit. */
	if (hsaqm_fetch_add(&g.unknown, 1ull) < 16)
		hsaqm_log_warn("kfdemu: %s ioctl %#lx is not emulated (answered -EINVAL)", what,
			       request);
	kfdemu_report_add("unknown-ioctl %s %#lx", what, request);
}

/*
 * $HSAQM_KFDEMU_REPORT, appended once at exit: the mode, one line per queue event, per SDMA
 * queue and per kernel name (kernel.c), "dkms-only-ioctls N" (ioctls only ROCm's out-of-tree
 * driver had, which an upstream KFD also refuses) and "unknown-ioctls N" (the DRM ioctls this
 * library did not know plus the KFD ioctls the model's face does not model): the matrix tests
 * require the last to be 0.
 */
static void write_report(void)
{
	const char *path = getenv("HSAQM_KFDEMU_REPORT");
	/* Acquire: pairs with the release that published the model (its state is whole). */
	struct hsaqm_sim *sim = hsaqm_load_acquire(&g.sim);
	FILE *f;

	if (!path || !*path || !sim)
		return;
	kfdemu_front_report();
	kfdemu_sdma_report();
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "hsaqm: cannot write the emulated KFD's report to %s: %s\n", path,
			strerror(errno));
		return;
	}
	pthread_mutex_lock(&g.lock);
	fprintf(f, "pid %d\n", (int)getpid());
	for (size_t i = 0; i < g.nreport; i++)
		fprintf(f, "%s\n", g.report[i]);
	pthread_mutex_unlock(&g.lock);
	kfdemu_kernel_report_to(f);
	fprintf(f, "dkms-only-ioctls %llu\n", (unsigned long long)sim_kfd_face_dkms_only(sim));
	/* Acquire: the count's latest increments. */
	fprintf(f, "unknown-ioctls %llu\n",
		(unsigned long long)(hsaqm_load_acquire(&g.unknown) +
				     sim_kfd_face_unmodelled(sim)));
	fclose(f);
}
