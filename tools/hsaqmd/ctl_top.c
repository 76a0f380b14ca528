/* SPDX-License-Identifier: MIT */
/*
 * hsaqmctl top: a live view of the daemon (docs/daemon.md "hsaqmctl top"): processes, their
 * queues, state, preemptions per second and the share of time held since the last frame,
 * the hand-off's P50/P99, refusals and stalls; redrawn every second.
 *
 * In a terminal: the frame fits the window (redrawn at once when it is resized, SIGWINCH),
 * `q` quits (the terminal is put back as it was, also on SIGINT/SIGTERM), the header is in
 * reverse video unless NO_COLOR is set or TERM is dumb. Not a terminal: plain frames one after
 * the other, no escape sequence at all.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ctl_internal.h"
#include "hsaqm/hsaqm.h"

#define FRAME_NS 1000000000ull

static volatile sig_atomic_t g_resized, g_stop;
static struct termios g_saved;
static bool g_raw, g_tty;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_winch(int sig)
{
	(void)sig;
	g_resized = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	g_stop = 1;
}

/* The terminal as it was: echo and line mode back, the cursor shown. */
static void restore(void)
{
	if (g_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &g_saved);
		g_raw = false;
	}
	if (g_tty) {
		fputs("\033[?25h", stdout);
		fflush(stdout);
		g_tty = false;
	}
}

static void window(unsigned int *w, unsigned int *h)
{
	struct winsize ws;

	*w = 80;
	*h = 0; /* unlimited: not a terminal */
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col) {
		*w = ws.ws_col;
		*h = ws.ws_row;
	}
}

/* The previous frame's figures of queue @qid, or NULL. */
static const struct hsaqmd_list_queue *prev_queue(const struct ctl_snapshot *p, uint32_t qid)
{
	for (size_t i = 0; p && i < p->nqueues; i++)
		if (p->queues[i].qid == qid)
			return &p->queues[i];
	return NULL;
}

struct frame {
	char **lines;
	size_t n;
};

static void add(struct frame *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct frame *f, const char *fmt, ...)
{
	char buf[512], **nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nl = realloc(f->lines, (f->n + 1) * sizeof(*nl));
	if (!nl)
		return;
	f->lines = nl;
	f->lines[f->n] = strdup(buf);
	if (f->lines[f->n])
		f->n++;
}

static void frame_free(struct frame *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->lines[i]);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

static void build(struct frame *f, const struct ctl_snapshot *s, const struct ctl_snapshot *p)
{
	const struct hsaqmd_stats_ok *st = &s->stats;
	double dt = p && s->taken_ns > p->taken_ns ? (double)(s->taken_ns - p->taken_ns) / 1e9 : 0;
	uint64_t up = st->uptime_ns / 1000000000ull;
	uint64_t refused = st->refused_full + st->refused_uid_limit + st->refused_hello +
			   st->refused_slow + st->refused_device + st->refused_quota;

	add(f, "hsaqmd  up %lluh%02llum%02llus  processes %zu%s  queues %u  devices %u  %s",
	    (unsigned long long)(up / 3600), (unsigned long long)(up / 60 % 60),
	    (unsigned long long)(up % 60), s->nprocs, s->hidden ? " (+ others')" : "",
	    st->queues, st->devices, st->realtime ? "real-time" : "not real-time");
	add(f, "hand-off  P50 %.1f us  P99 %.1f us  (%llu holds)   stalls %llu   refused %llu   "
	    "malformed %llu",
	    st->ready_acked.p50_ns / 1e3, st->ready_acked.p99_ns / 1e3,
	    (unsigned long long)st->ready_acked.count, (unsigned long long)st->stalls,
	    (unsigned long long)refused, (unsigned long long)st->bad_messages);
	add(f, "%s", "");
	add(f, "%-8s %-6s %-16s %5s  %-6s %-8s %-5s %-10s %-10s %9s %5s", "PID", "UID", "COMM",
	    "PRIO", "QUEUE", "GPU", "LEVEL", "MECHANISM", "STATE", "PREEMPT/S", "HELD%");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct hsaqmd_list_proc *pr = &s->procs[i];

		add(f, "%-8u %-6u %-16s %5d", pr->pid_ns, pr->uid, pr->comm, pr->priority);
		for (size_t j = 0; j < s->nqueues; j++) {
			const struct hsaqmd_list_queue *q = &s->queues[j];
			const struct hsaqmd_list_queue *o;
			char rate[16] = "-", held[16] = "-", qn[16];

			if (q->client_id != pr->client_id)
				continue;
			o = prev_queue(p, q->qid);
			if (o && dt > 0) {
				snprintf(rate, sizeof(rate), "%.1f",
					 (double)(q->preemptions - o->preemptions) / dt);
				snprintf(held, sizeof(held), "%.0f",
					 q->held_ns >= o->held_ns
						 ? 100.0 * (double)(q->held_ns - o->held_ns) / 1e9 / dt
						 : 0.0);
			}
			snprintf(qn, sizeof(qn), "q%u", q->qid);
			add(f, "%-8s %-6s %-16s %5d  %-6s %-8u %-5s %-10s %-10s %9s %5s", "", "", "",
			    q->priority, qn, q->gpu_id, hsaqm_level_name((enum hsaqm_level)q->level),
			    q->mech, q->stalled ? "stalled" : ctl_state_name(q->state), rate, held);
		}
	}
	if (!s->nprocs)
		add(f, "(no process registered%s)", s->hidden ? " that you may see" : "");
}

/* One frame: in a terminal from the top-left corner, cut to the window; else plain. */
static void draw(const struct frame *f, bool tty, bool color)
{
	unsigned int w, h;
	size_t rows;

	window(&w, &h);
	rows = h && f->n > h - 1 ? h - 1 : f->n;
	if (tty)
		fputs("\033[H", stdout);
	for (size_t i = 0; i < rows; i++) {
		const char *l = f->lines[i];
		int n = (int)strlen(l);

		if (i + 1 == rows && rows < f->n) {
			printf("... %zu more lines (a taller window shows them)", f->n - rows + 1);
			n = 0;
		} else {
			if (n > (int)w)
				n = (int)w;
			if (color && i == 0)
				fputs("\033[7m", stdout);
			fwrite(l, 1, (size_t)n, stdout);
			if (color && i == 0)
				fputs("\033[0m", stdout);
		}
		fputs(tty ? "\033[K\n" : "\n", stdout);
	}
	if (tty)
		fputs("\033[J", stdout);
	else
		fputs("\n", stdout);
	fflush(stdout);
}

/* Wait for the next frame, a key or a resize. Return: 1 to quit, 0 to go on. */
static int wait_frame(uint64_t until, bool keys)
{
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		uint64_t now = mono_ns();
		int r;

		if (g_stop)
			return 1;
		if (g_resized || now >= until)
			return 0;
		r = poll(keys ? &p : NULL, keys ? 1 : 0, (int)((until - now) / 1000000ull) + 1);
		if (r > 0 && (p.revents & POLLIN)) {
			char c;

			if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
				return 1;
			if (p.revents & (POLLHUP | POLLERR))
				keys = false;
		}
	}
}

int ctl_top(unsigned int seconds)
{
	struct ctl_snapshot cur = { 0 }, prev = { 0 };
	struct sigaction sa = { .sa_handler = on_winch };
	struct sigaction st = { .sa_handler = on_stop };
	const char *term = getenv("TERM");
	bool tty = isatty(STDOUT_FILENO), keys = tty && isatty(STDIN_FILENO);
	bool color = tty && !getenv("NO_COLOR") && term && strcmp(term, "dumb");
	uint64_t start = mono_ns(), next = start;
	int rc = 0;

	/* No SA_RESTART: a resize or a stop interrupts the wait at once. */
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGINT, &st, NULL);
	sigaction(SIGTERM, &st, NULL);
	if (keys && tcgetattr(STDIN_FILENO, &g_saved) == 0) {
		struct termios t = g_saved;

		/* Keys one at a time, not echoed; output processing (\n -> \r\n) stays. */
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		g_raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	}
	if (tty) {
		g_tty = true;
		fputs("\033[?25l\033[2J", stdout); /* no cursor; a clean screen */
	}
	atexit(restore);
	for (;;) {
		struct frame f = { 0 };

		if (!g_resized) {
			ctl_snapshot_free(&prev);
			prev = cur;
			memset(&cur, 0, sizeof(cur));
			rc = ctl_snapshot_take(&cur);
			if (rc)
				break;
			next += FRAME_NS;
		}
		g_resized = 0;
		build(&f, &cur, prev.taken_ns ? &prev : NULL);
		draw(&f, tty, color);
		frame_free(&f);
		if (seconds && mono_ns() - start >= (uint64_t)seconds * FRAME_NS)
			break;
		if (wait_frame(next, keys))
			break;
	}
	restore();
	ctl_snapshot_free(&cur);
	ctl_snapshot_free(&prev);
	if (rc) {
		fprintf(stderr, "hsaqmctl: top: %s\n", rc == -ECONNRESET ? "the daemon went away"
									 : strerror(-rc));
		return CTL_EXIT_REFUSED;
	}
	return 0;
}
