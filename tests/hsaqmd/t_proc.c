/* SPDX-License-Identifier: MIT */
/* Real processes for the hsaqmd tests (t_proc.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t_proc.h"

struct t_bins t_bins;

int t_hsaqmd_args(int argc, char **argv, const char *more)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s HSAQMD HSAQMCTL T-DCLIENT%s%s\n", argv[0], *more ? " " : "",
			more);
		return -EINVAL;
	}
	t_bins.hsaqmd = argv[1];
	t_bins.hsaqmctl = argv[2];
	t_bins.dclient = argv[3];
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* In a forked child: become @uid (and its group, no supplementary groups). */
static void become(uid_t uid)
{
	if (uid == T_SAME_UID)
		return;
	if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid(uid) < 0) {
		perror("t_proc: setuid");
		_exit(126);
	}
}

/* @pid once reaped, -1 on an error, 0 when it still runs after @ms. */
static pid_t reap_within(pid_t pid, int ms, int *status)
{
	pid_t r = 0;

	T_UNTIL_EVERY((r = waitpid(pid, status, WNOHANG)) != 0, (uint64_t)ms * T_MS,
		      T_MS);
	return r;
}

int t_daemon_init(struct t_daemon *d)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->dir, "/tmp/hsaqmd-test-XXXXXX");
	if (!mkdtemp(d->dir) || chmod(d->dir, 0755) < 0)
		return -errno;
	snprintf(d->sock, sizeof(d->sock), "%s/hsaqmd.sock", d->dir);
	return 0;
}

int t_daemon_start(struct t_daemon *d)
{
	d->uid = T_SAME_UID;
	d->default_socket = false;
	d->log[0] = '\0';
	return t_daemon_start_as(d);
}

int t_daemon_start_as(struct t_daemon *d)
{
	int p[2];
	char fdarg[16], buf[16];
	struct pollfd pfd;

	if (pipe(p) < 0)
		return -errno;
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		/* hsaqmd, --socket PATH, --ready-fd FD, --config FILE, the flag, NULL */
		const char *argv[10];
		int n = 0;

		static char path_env[] = "PATH=/usr/bin:/bin";
		char *const empty[] = { path_env, NULL };

		close(p[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		if (d->log[0]) {
			int fd = open(d->log, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		become(d->uid);
		argv[n++] = t_bins.hsaqmd;
		if (!d->default_socket) {
			argv[n++] = "--socket";
			argv[n++] = d->sock;
		}
		argv[n++] = "--ready-fd";
		argv[n++] = fdarg;
		if (d->config[0]) {
			argv[n++] = "--config";
			argv[n++] = d->config;
		}
		if (t_bins.daemon_flag)
			argv[n++] = t_bins.daemon_flag;
		argv[n] = NULL;
		if (d->default_socket)
			execve(argv[0], (char *const *)argv, empty);
		else
			execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	int ok = poll(&pfd, 1, 10000) == 1 && read(p[0], buf, sizeof(buf)) > 0;

	close(p[0]);
	if (!ok) {
		t_daemon_stop(d, SIGKILL);
		return -ETIMEDOUT;
	}
	return 0;
}

int t_daemon_stop(struct t_daemon *d, int sig)
{
	int status = -1;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, sig);
	if (reap_within(d->pid, 5000, &status) == 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
	}
	d->pid = 0;
	return status;
}

void t_daemon_fini(struct t_daemon *d)
{
	char p[256];

	if (d->pid > 0)
		t_daemon_stop(d, SIGTERM);
	snprintf(p, sizeof(p), "%s/hsaqmd.sock", d->dir);
	unlink(p);
	if (d->config[0])
		unlink(d->config);
	rmdir(d->dir);
}

/* Move complete lines from the buffer to the line list. */
static void split_lines(struct t_client *c)
{
	char *nl;

	while ((nl = memchr(c->buf, '\n', c->len))) {
		size_t n = (size_t)(nl - c->buf);

		/* Full: the oldest line goes (a busy client's events must not crowd out the
		 * reply a test waits for). */
		if (c->nlines == (int)(sizeof(c->lines) / sizeof(c->lines[0]))) {
			free(c->lines[0]);
			memmove(&c->lines[0], &c->lines[1], (size_t)(c->nlines - 1) * sizeof(c->lines[0]));
			c->nlines--;
		}
		c->lines[c->nlines] = strndup(c->buf, n);
		c->nlines++;
		memmove(c->buf, nl + 1, c->len - n - 1);
		c->len -= n + 1;
	}
}

static int read_more(struct t_client *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->out, .events = POLLIN };
	ssize_t r;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -ETIMEDOUT;
	r = read(c->out, c->buf + c->len, sizeof(c->buf) - c->len - 1);
	if (r <= 0)
		return -EPIPE;
	c->len += (size_t)r;
	split_lines(c);
	return 0;
}

int t_client_expect(struct t_client *c, const char *prefix, int timeout_ms, char *out, size_t len)
{
	uint64_t end = t_mono_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		for (int i = 0; i < c->nlines; i++) {
			if (strncmp(c->lines[i], prefix, strlen(prefix)))
				continue;
			if (out)
				snprintf(out, len, "%s", c->lines[i]);
			free(c->lines[i]);
			memmove(&c->lines[i], &c->lines[i + 1],
				(size_t)(c->nlines - i - 1) * sizeof(c->lines[0]));
			c->nlines--;
			return 0;
		}
		uint64_t now = t_mono_ns();

		if (now >= end)
			return -ETIMEDOUT;
		int left = (int)((end - now) / 1000000ull) + 1;

		if (read_more(c, left) == -EPIPE) {
			/* The process is gone: nothing more will come. */
			return -ETIMEDOUT;
		}
	}
}

bool t_client_sees(struct t_client *c, const char *prefix, int ms)
{
	return t_client_expect(c, prefix, ms, NULL, 0) == 0;
}

uint64_t t_event_time(const char *line)
{
	const char *sp = strrchr(line, ' ');

	return sp ? strtoull(sp + 1, NULL, 10) : 0;
}

int t_client_start(struct t_client *c, const struct t_daemon *d, int prio, uid_t uid,
		   char *open_line, size_t len)
{
	return t_client_start_opt(c, d->sock, prio, uid, false, open_line, len);
}

int t_client_start_opt(struct t_client *c, const char *sock, int prio, uid_t uid, bool retry,
		       char *open_line, size_t len)
{
	int in[2], out[2];
	char pr[16];

	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		static char path_env[] = "PATH=/usr/bin:/bin";
		char *const empty[] = { path_env, NULL };
		const char *argv[10];
		int n = 0;

		become(uid);
		snprintf(pr, sizeof(pr), "%d", prio);
		argv[n++] = t_bins.dclient;
		if (sock) {
			argv[n++] = "--socket";
			argv[n++] = sock;
		}
		argv[n++] = "--priority";
		argv[n++] = pr;
		if (retry) {
			argv[n++] = "--retry";
			argv[n++] = "1";
		}
		argv[n] = NULL;
		if (sock)
			execv(argv[0], (char *const *)argv);
		else
			execve(argv[0], (char *const *)argv, empty);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	return t_client_expect(c, "open", 10000, open_line, len);
}

void t_client_send(struct t_client *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(c->in, line, (size_t)n) != n)
		fprintf(stderr, "t_client_send: %s\n", strerror(errno));
}

static void client_free(struct t_client *c)
{
	for (int i = 0; i < c->nlines; i++)
		free(c->lines[i]);
	c->nlines = 0;
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	c->in = c->out = -1;
	c->pid = 0;
}

int t_client_stop(struct t_client *c)
{
	int status = -1;

	if (c->pid <= 0)
		return -1;
	t_client_send(c, "exit");
	if (reap_within(c->pid, 5000, &status) == 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
	}
	client_free(c);
	return status;
}

void t_client_kill(struct t_client *c)
{
	int status;

	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, 0);
	client_free(c);
}

bool t_ctl_list_shows(const struct t_daemon *d, const char *needle, int timeout_ms)
{
	char out[16384];

	/* Each look runs hsaqmctl: every 10 ms is often enough. */
	return T_UNTIL_EVERY(t_ctl(d, T_SAME_UID, out, sizeof(out), "list", "--json", NULL) == 0 &&
				     strstr(out, needle),
			     (uint64_t)timeout_ms * T_MS, 10 * T_MS);
}

int t_ctl(const struct t_daemon *d, uid_t uid, char *out, size_t len, ...)
{
	const char *argv[16];
	int n = 0, p[2], status;
	size_t got = 0;
	va_list ap;
	pid_t pid;

	argv[n++] = t_bins.hsaqmctl;
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	va_start(ap, len);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		become(uid);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		char tmp[4096];
		ssize_t r = read(p[0], tmp, sizeof(tmp));

		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r && out && got + 1 < len; i++)
			out[got++] = tmp[i];
	}
	if (out && len)
		out[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

long t_rss_kib(pid_t pid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

int t_count_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

int t_exec(uid_t uid, bool env_clear, int timeout_ms, char *out, size_t len,
	   const char *const *argv)
{
	int p[2], status = -1;
	size_t got = 0;
	pid_t pid;
	uint64_t end = t_mono_ns() + (uint64_t)timeout_ms * 1000000ull;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		static char path_env[] = "PATH=/usr/bin:/bin";
		char *const empty[] = { path_env, NULL };

		dup2(p[1], 1);
		dup2(p[1], 2);
		become(uid);
		if (env_clear)
			execve(argv[0], (char *const *)argv, empty);
		else
			execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		uint64_t now = t_mono_ns();
		char tmp[4096];

		if (now >= end) {
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1) <= 0)
			continue;
		ssize_t r = read(p[0], tmp, sizeof(tmp));

		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r && out && got + 1 < len; i++)
			out[got++] = tmp[i];
	}
	if (out && len)
		out[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
