/* SPDX-License-Identifier: MIT */
/*
 * t_proc.h - real processes for the hsaqmd tests: the daemon (hsaqmd), test clients
 * (t-dclient, driven on stdin, reporting on stdout) and hsaqmctl runs, optionally as
 * another uid.
 */
#ifndef T_PROC_H
#define T_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "t_time.h"

#define T_NOBODY 65534u
#define T_SAME_UID ((uid_t)-1)

/* Paths of the binaries under test (from the test's argv). */
struct t_bins {
	const char *hsaqmd;
	const char *hsaqmctl;
	const char *dclient;
	const char *daemon_flag; /* one more option for every hsaqmd started, or NULL */
};
extern struct t_bins t_bins;

/*
 * The start of every hsaqmd test's main(): argv is HSAQMD HSAQMCTL T-DCLIENT [...], which set
 * t_bins (argv[4] and on are the test's own); SIGPIPE is ignored, so that a write to a client
 * that died fails instead of killing the test. Returns 0, or prints the usage (@more: the rest
 * of it after T-DCLIENT, "" for none) and returns -EINVAL.
 */
int t_hsaqmd_args(int argc, char **argv, const char *more);

struct t_daemon {
	pid_t pid;
	char dir[64];
	char sock[128];
	char config[128];
	/* t_daemon_start_as(): run as this uid (T_SAME_UID: ours), with an empty environment
	 * and no --socket (the daemon's default socket, which d->sock must name), stdout and
	 * stderr into log (when non-empty). */
	uid_t uid;
	bool default_socket;
	char log[128];
};

/* A fresh directory (mode 0755, reachable by nobody) and the socket path inside. */
int t_daemon_init(struct t_daemon *d);
/* Start hsaqmd on d->sock (with d->config if non-empty); waits until it listens. */
int t_daemon_start(struct t_daemon *d);
/* The same with d->uid, d->default_socket and d->log as set (t_daemon_init() clears them). */
int t_daemon_start_as(struct t_daemon *d);
/* Send @sig and reap it; returns its wait status. */
int t_daemon_stop(struct t_daemon *d, int sig);
/* Stop it if running and remove the directory. */
void t_daemon_fini(struct t_daemon *d);

struct t_client {
	pid_t pid;
	int in, out;
	char buf[16384];
	size_t len;
	char *lines[256];
	int nlines;
};

/* Start t-dclient with @prio, as @uid (T_SAME_UID: ours); waits for its "open" line,
 * copied into @open_line. Returns 0 or a negative errno. */
int t_client_start(struct t_client *c, const struct t_daemon *d, int prio, uid_t uid,
		   char *open_line, size_t len);
/* The same, options spelled out: @sock NULL = no --socket (the client's own search) with an
 * empty environment; @retry: --retry (HSAQM_DCLIENT_RETRY). */
int t_client_start_opt(struct t_client *c, const char *sock, int prio, uid_t uid, bool retry,
		       char *open_line, size_t len);
void t_client_send(struct t_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The first line (received or still to come within @timeout_ms) that starts with @prefix;
 * earlier lines that do not match stay for later calls. Returns 0 or -ETIMEDOUT. */
int t_client_expect(struct t_client *c, const char *prefix, int timeout_ms, char *out, size_t len);
/* True when a line starting with @prefix arrives within @ms (it is consumed). */
bool t_client_sees(struct t_client *c, const char *prefix, int ms);
/* The time stamp (last field) of an "ev ..." line. */
uint64_t t_event_time(const char *line);
/* "exit", then reap (SIGKILL after 5 s). Returns the wait status. */
int t_client_stop(struct t_client *c);
void t_client_kill(struct t_client *c);

/* Run hsaqmctl --socket d->sock ARGS... as @uid; its stdout into @out. Returns its exit
 * code (or -1). */
int t_ctl(const struct t_daemon *d, uid_t uid, char *out, size_t len, ...);

/* True as soon as `hsaqmctl list --json` on @d shows @needle, false when it still does not
 * after @timeout_ms (where the test gives up). */
bool t_ctl_list_shows(const struct t_daemon *d, const char *needle, int timeout_ms);

/*
 * Run @argv (NULL-terminated) as @uid with @env_clear (true: an empty environment but PATH),
 * stdout and stderr together into @out; SIGKILL after @timeout_ms. Returns the exit code,
 * 128 + the signal, or -1.
 */
int t_exec(uid_t uid, bool env_clear, int timeout_ms, char *out, size_t len,
	   const char *const *argv);

/* VmRSS of @pid in KiB, and its open fds; -1 when unreadable. */
long t_rss_kib(pid_t pid);
int t_count_fds(pid_t pid);

#endif
