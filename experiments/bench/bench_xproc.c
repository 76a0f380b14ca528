/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-bench-xproc: the cross-process reaction with the real tool library (docs/daemon.md,
 * "Measurements"): from the doorbell a high process rings (ROCclr-style, through the tool's
 * wrapped table) to the low process's gate closed (the tool's PREEMPT applied:
 * hsaqm_xq_suspend() returned), through hsaqmd. Real processes on one hsaqm-simd, each under
 * hsaqm-run. Baseline in the same run: a Unix SEQPACKET round trip between two processes.
 * Once per mode (its CPU time is reported each time):
 *   event      the daemon sleeps in epoll; every thread SCHED_OTHER (realtime = off,
 *              HSAQM_REALTIME=off)
 *   event-rt   the same with the daemon's thread and the tools' control threads SCHED_FIFO
 *              (root or CAP_SYS_NICE; docs/daemon.md "Under load")
 *   spin       event, and the daemon polls the state words for spin_us = 1000 after each
 *              change before it sleeps (a bounded spin; never real time: docs/daemon.md)
 *   busy       busy_poll = yes (it spins while two clients are connected; not real time)
 *
 *   hsaqm-bench-xproc [ITERATIONS] [--load N] [--modes M1,M2...]
 *     ITERATIONS  samples per mode (default 300)
 *     --load N    run `stress-ng --cpu N` (Debian's stress-ng) beside every mode: N = the
 *                 core count saturates every core (as a training job's data loaders do)
 *     --modes     which modes, in order (default event,event-rt,spin,busy; with --load:
 *                 event,event-rt)
 *
 * The low process publishes its tool's hold timestamp (CLOCK_MONOTONIC, system-wide) in a
 * shared file; the high process takes CLOCK_MONOTONIC just before its doorbell store.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_hsa.h"
#include "t_rocclr.h"
#include "bench_sort.h"

struct board {
	uint64_t holds;        /* low: the tool's PREEMPT count */
	uint64_t last_hold_ns; /* low: when the last one was applied */
	uint64_t resumes;
	uint64_t last_resume_ns; /* low: when the last RESUME was applied */
	uint32_t stop;
};

static struct t_hsa h;
static int (*stats_json)(char *buf, size_t size, size_t *needed);

static uint64_t json_u64(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int open_hsa(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim;
	void *lib;

	if (hsaqm_sim_open_env(&cfg, &sim) || t_hsa_attach(&h, sim))
		return -1;
	lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (lib)
		*(void **)&stats_json = dlsym(lib, "hsaqm_process_stats_json");
	return stats_json ? 0 : -1;
}

static struct hsaqm_hsa_queue *queue(int prio)
{
	struct hsaqm_hsa_queue *q = t_hsa_queue(&h, 256, prio);

	if (!q)
		exit(99);
	return q;
}

/* The low process: one queue (idle: HPF holds idle lower queues too), its tool's figures
 * copied to the board every 100 us (the tool stamps the hold itself; this only publishes it,
 * and a faster loop would load the two cores the measured path runs on). */
static int role_low(struct board *b)
{
	static char buf[1 << 14];

	queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	while (!hsaqm_load_acquire(&b->stop)) {
		size_t need;

		if (stats_json(buf, sizeof(buf), &need) == 0) {
			const char *d = strstr(buf, "\"daemon\":{\"client\"");

			if (d) {
				HSAQM_WRITE_ONCE(b->last_hold_ns, json_u64(d, "\"last_hold_ns\":"));
				HSAQM_WRITE_ONCE(b->last_resume_ns,
						 json_u64(d, "\"last_resume_ns\":"));
				HSAQM_WRITE_ONCE(b->resumes, json_u64(d, "\"resumes\":"));
				/* Release: the timestamp is visible with the count. */
				hsaqm_store_release(&b->holds, json_u64(d, "\"holds\":"));
			}
		}
		t_sleep_us(100);
	}
	return 0;
}

static int role_high(struct board *b, unsigned int iters, const char *label)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "high", .duration_ns = 20 * T_US,
					    .waves_per_wg = 1 };
	struct hsaqm_hsa_queue *q = queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	struct hsaqm_hsa_signal cs = t_hsa_signal(&h, 0);
	uint64_t kobj, *d = calloc(iters, sizeof(*d)), *rtt = calloc(iters, sizeof(*rtt));
	uint64_t *r = calloc(iters, sizeof(*r));
	unsigned int n = 0, nr = 0, missed = 0, gap_us;
	uint64_t loop0 = t_mono_ns();
	int sp[2];
	pid_t echo;

	if (!d || !rtt || !r || hsaqm_sim_kernel_register(h.sim, &kd, &kobj))
		return 99;
	for (unsigned int i = 0; i < iters; i++) {
		uint64_t before = hsaqm_load_acquire(&b->holds), res = HSAQM_READ_ONCE(b->resumes);
		union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);
		uint64_t t0, end;

		h.core->hsa_signal_store_relaxed_fn(cs, 1);
		t0 = t_mono_ns();
		t_rocclr_submit(h.core, q, &pk, NULL, NULL);
		/* The low process's tool stamps the hold itself; its board loop (SCHED_OTHER) may
		 * publish it late on a loaded host, which must not count as a missed hold. */
		end = t0 + 2000 * T_MS;
		while (hsaqm_load_acquire(&b->holds) == before && t_mono_ns() < end)
			t_sleep_us(50);
		if (hsaqm_load_acquire(&b->holds) != before)
			d[n++] = HSAQM_READ_ONCE(b->last_hold_ns) - t0;
		else
			missed++;
		t_hsa_wait_le(&h, cs, 0, 10 * T_S);
		/* The queue goes idle, the daemon resumes the low one: the next sample starts
		 * from a running low process. */
		end = t_mono_ns() + 200 * T_MS;
		while (HSAQM_READ_ONCE(b->resumes) == res && t_mono_ns() < end)
			t_sleep_us(20);
		/* How long the low process stayed held: the high kernel (20 us), its completion
		 * reported idle (lib's idle hook), the daemon, the low process's resume. */
		if (HSAQM_READ_ONCE(b->resumes) != res &&
		    HSAQM_READ_ONCE(b->last_resume_ns) > HSAQM_READ_ONCE(b->last_hold_ns))
			r[nr++] = HSAQM_READ_ONCE(b->last_resume_ns) - HSAQM_READ_ONCE(b->last_hold_ns);
	}
	gap_us = (unsigned int)((t_mono_ns() - loop0) / iters / 1000);
	/* Baseline: a SEQPACKET round trip between this process and a child, spaced like the
	 * samples above (each side sleeps in between), so both pay the same wake-ups from idle. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp))
		return 99;
	echo = fork();
	if (echo == 0) {
		char c[64];
		ssize_t rd;

		close(sp[0]);
		while ((rd = read(sp[1], c, sizeof(c))) > 0)
			if (write(sp[1], c, (size_t)rd) != rd)
				break;
		_exit(0);
	}
	close(sp[1]);
	for (unsigned int i = 0; i < iters; i++) {
		char c[64] = "ping";
		uint64_t t0;

		t_sleep_us(gap_us);
		t0 = t_mono_ns();

		if (write(sp[0], c, 16) != 16 || read(sp[0], c, sizeof(c)) != 16)
			return 99;
		rtt[i] = t_mono_ns() - t0;
	}
	close(sp[0]);
	waitpid(echo, NULL, 0);
	bench_sort_u64(d, n);
	bench_sort_u64(rtt, iters);
	bench_sort_u64(r, nr);
	if (!n) {
		printf("[%s] no hold seen in %u iterations\n", label, iters);
		return 1;
	}
	printf("[%s]\n", label);
	printf("  doorbell (high process) -> low process's gate closed   median %7.2f us   P99 %7.2f us"
	       "   (%u samples, %u missed)\n", d[n / 2] / 1e3, d[(n * 99) / 100] / 1e3, n, missed);
	printf("  baseline: Unix SEQPACKET round trip, two processes    median %7.2f us   P99 %7.2f us"
	       "   (one every %u us; ratio %.2f)\n", rtt[iters / 2] / 1e3,
	       rtt[(iters * 99) / 100] / 1e3, gap_us, (double)d[n / 2] / (double)rtt[iters / 2]);
	printf("  targets: median <= 50 us (idle host): %s; P99 <= 1 ms (every core busy): %s\n",
	       d[n / 2] <= 50 * T_US ? "met" : "NOT met",
	       d[(n * 99) / 100] <= 1000 * T_US ? "met" : "NOT met");
	if (nr)
		printf("  low process held (its hold -> its resume; 20 us kernel) median %7.2f us   P99 %7.2f us"
		       "   (%u samples)\n", r[nr / 2] / 1e3, r[(nr * 99) / 100] / 1e3, nr);
	fflush(stdout);
	free(r);
	free(d);
	free(rtt);
	return 0;
}

/* The daemon's CPU time so far (utime + stime from /proc), in ns. */
static uint64_t cpu_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, stime = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* Fields 14 and 15 (utime, stime) after the command's closing parenthesis. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
			 &stime) != 2)
		return 0;
	return (uint64_t)(ut + stime) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

static pid_t spawn(const char *const argv[], const char *out)
{
	pid_t p = fork();

	if (p == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 2);
			if (!strstr(argv[0], "hsaqm-run"))
				dup2(fd, 1);
		}
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	return p;
}

static void wait_path(const char *p)
{
	for (int i = 0; i < 200 && access(p, F_OK); i++)
		t_sleep_us(50000);
}

struct mode {
	const char *name;
	const char *config;  /* hsaqmd.conf beyond the cap line */
	const char *tool_rt; /* HSAQM_REALTIME of the two processes */
};

static const struct mode modes[] = {
	{ "event", "realtime = off\n", "off" },
	{ "event-rt", "realtime = on\n", "on" },
	{ "spin", "realtime = off\nspin_us = 1000\n", "off" },
	{ "busy", "realtime = off\nbusy_poll = yes\n", "off" },
};

static const struct mode *mode_named(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strlen(modes[i].name) == len && !strncmp(modes[i].name, name, len))
			return &modes[i];
	return NULL;
}

/* stress-ng --cpu @n for as long as the bench runs (killed at the end). */
static pid_t load_start(unsigned int n, const char *dir)
{
	char ns[16], out[300];
	const char *a[] = { "/usr/bin/stress-ng", "--cpu", ns, "--timeout", "3600", "--quiet",
			    NULL };

	if (access(a[0], X_OK)) {
		fprintf(stderr, "--load needs stress-ng (Debian: apt-get install stress-ng)\n");
		return -1;
	}
	snprintf(ns, sizeof(ns), "%u", n);
	snprintf(out, sizeof(out), "%s/stress.out", dir);
	return spawn(a, out);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/hsaqm-bench-xproc-XXXXXX", sim[256], dsock[256], conf[256], board[256];
	char iters_s[16], self[4096];
	unsigned int iters = 300, load = 0;
	const char *mode_list = NULL;
	const struct mode *run[8];
	size_t nrun = 0;
	struct board *b;
	pid_t simd, daemon_pid, low, high, stress = -1;
	int fd, st = 0;
	ssize_t sl;

	if (argc >= 3 && (!strcmp(argv[1], "low") || !strcmp(argv[1], "high"))) {
		fd = open(argv[2], O_RDWR);
		b = fd < 0 ? MAP_FAILED
			   : mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (b == MAP_FAILED || open_hsa())
			return 99;
		if (!strcmp(argv[1], "low"))
			exit(role_low(b));
		st = role_high(b, argc > 3 ? (unsigned int)atoi(argv[3]) : 300,
			       argc > 4 ? argv[4] : "event-driven");
		hsaqm_store_release(&b->stop, 1u);
		exit(st);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--load") && i + 1 < argc)
			load = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
			mode_list = argv[++i];
		else if (argv[i][0] >= '0' && argv[i][0] <= '9')
			iters = (unsigned int)atoi(argv[i]);
		else {
			fprintf(stderr, "usage: hsaqm-bench-xproc [ITERATIONS] [--load N] "
				"[--modes event,event-rt,spin,busy]\n");
			return 2;
		}
	}
	if (!mode_list)
		mode_list = load ? "event,event-rt" : "event,event-rt,spin,busy";
	for (const char *m = mode_list; *m && nrun < 8;) {
		size_t len = strcspn(m, ",");

		run[nrun] = mode_named(m, len);
		if (!run[nrun]) {
			fprintf(stderr, "hsaqm-bench-xproc: no mode \"%.*s\"\n", (int)len, m);
			return 2;
		}
		nrun++;
		m += len + (m[len] == ',');
	}
	if (iters < 10 || iters > 100000 || load > 1024 || !mkdtemp(dir))
		return 2;
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		return 2;
	self[sl] = '\0';
	snprintf(sim, sizeof(sim), "%s/sim.sock", dir);
	snprintf(dsock, sizeof(dsock), "%s/d.sock", dir);
	snprintf(conf, sizeof(conf), "%s/hsaqmd.conf", dir);
	snprintf(board, sizeof(board), "%s/board", dir);
	snprintf(iters_s, sizeof(iters_s), "%u", iters);
	fd = open(board, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct board)))
		return 2;
	close(fd);
	setenv("HSAQM_SIM_DEVICE", sim, 1);
	setenv("HSAQM_LEVEL", "lv2", 1);
	if (load) {
		stress = load_start(load, dir);
		if (stress < 0)
			return 2;
		printf("load: stress-ng --cpu %u beside every mode (%ld cores)\n", load,
		       sysconf(_SC_NPROCESSORS_ONLN));
		t_sleep_us(500000);
	}
	for (size_t mode = 0; mode < nrun; mode++) {
		const char *label = run[mode]->name;
		uint64_t wall0, cpu0;
		int hst = 1;
		FILE *f = fopen(conf, "w");

		if (!f)
			return 2;
		fprintf(f, "cap.default = 100\n%s", run[mode]->config);
		fclose(f);
		setenv("HSAQM_REALTIME", run[mode]->tool_rt, 1);

		{
			const char *a[] = { HSAQM_SIMD_PATH, "-s", sim, NULL };
			char out[300];

			snprintf(out, sizeof(out), "%s/simd-%zu.out", dir, mode);
			simd = spawn(a, out);
		}
		wait_path(sim);
		{
			const char *a[] = { HSAQMD_PATH, "--socket", dsock, "--config", conf, NULL };
			char out[300];

			snprintf(out, sizeof(out), "%s/hsaqmd-%zu.out", dir, mode);
			daemon_pid = spawn(a, out);
		}
		wait_path(dsock);
		{
			const char *a[] = { HSAQM_RUN_PATH, "-p", "low", "--daemon", dsock, "--", self,
					    "low", board, NULL };
			char out[300];

			snprintf(out, sizeof(out), "%s/low-%zu.out", dir, mode);
			low = spawn(a, out);
		}
		t_sleep_us(500000);
		wall0 = t_mono_ns();
		cpu0 = cpu_ns(daemon_pid);
		{
			const char *a[] = { HSAQM_RUN_PATH, "-p", "high", "--daemon", dsock, "--",
					    self, "high", board, iters_s, label, NULL };
			char out[300];

			snprintf(out, sizeof(out), "%s/high-%zu.err", dir, mode);
			high = spawn(a, out);
		}
		waitpid(high, &hst, 0);
		printf("  daemon CPU while measuring: %.0f %% of one core\n",
		       100.0 * (double)(cpu_ns(daemon_pid) - cpu0) /
			       (double)(t_mono_ns() - wall0));
		/* The daemon's own view of the same holds (docs/daemon.md "Hand-off timing"): its
		 * "ready -> acked" is this path from the tool's state store to the gate closed. */
		{
			const char *a[] = { HSAQMCTL_PATH, "--socket", dsock, "stats", NULL };
			char out[300], line[256];
			bool on = false;
			FILE *sf;
			pid_t ctl;

			snprintf(out, sizeof(out), "%s/stats-%zu.out", dir, mode);
			ctl = spawn(a, out);
			waitpid(ctl, NULL, 0);
			sf = fopen(out, "r");
			while (sf && fgets(line, sizeof(line), sf)) {
				on = on || !strncmp(line, "hand-off", 8);
				if (on || !strncmp(line, "real-time", 9))
					printf("  hsaqmd %s", line);
			}
			if (sf)
				fclose(sf);
		}
		fflush(stdout);
		kill(low, SIGTERM);
		waitpid(low, NULL, 0);
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		kill(simd, SIGTERM);
		waitpid(simd, NULL, 0);
		unlink(sim);
		unlink(dsock);
		/* The board's counters start again from the new low process's zeros. */
		fd = open(board, O_RDWR | O_TRUNC);
		if (fd < 0 || ftruncate(fd, sizeof(struct board)))
			return 2;
		close(fd);
		if (!WIFEXITED(hst) || WEXITSTATUS(hst)) {
			fprintf(stderr, "the high process failed (%d): see %s\n", hst, dir);
			st = hst;
		}
	}
	if (stress > 0) {
		kill(stress, SIGTERM);
		waitpid(stress, NULL, 0);
	}
	printf("(MODEL-DEPENDENT: the doorbell goes through the model's HSA face; wall time)\n");
	return st == 0 ? 0 : (WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}
