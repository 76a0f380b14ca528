/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's metrics with the real consumers (issue 20): `hsaqmctl metrics` passes Debian's
 * `promtool check metrics`; a real Prometheus server, started here on loopback, scrapes the
 * daemon's endpoint and a query returns the held queue's preemptions, and the series goes away
 * with its process; connections to the endpoint that never send a request, or too many at
 * once, are dropped without delaying a preemption; a refused bind says why. Skipped (77)
 * without prometheus and promtool (scripts/ensure-deps installs them).
 *
 * Usage (meson passes the binaries): test-hsaqmd-metrics HSAQMD HSAQMCTL T-DCLIENT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_cunit.h"
#include "t_proc.h"

#define WAIT_MS 5000
#define PROMETHEUS "/usr/bin/prometheus"
#define PROMTOOL "/usr/bin/promtool"

static struct t_daemon dmn;
static int g_port; /* the daemon's metrics endpoint */

/* A loopback TCP port free right now. */
static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int tcp_connect(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* GET @path on 127.0.0.1:@port; the whole response (headers and body) in @out. 0 or -1. */
static int http_get(int port, const char *path, char *out, size_t len)
{
	char req[512];
	size_t got = 0;
	int fd = tcp_connect(port), n;

	if (fd < 0)
		return -1;
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (write(fd, req, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 5000) != 1)
			break;
		r = read(fd, out + got, len - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == len - 1)
			break;
	}
	out[got] = '\0';
	close(fd);
	return got ? 0 : -1;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int suite_init(void)
{
	char conf[128];

	if (t_daemon_init(&dmn))
		return -1;
	g_port = free_port();
	snprintf(dmn.config, sizeof(dmn.config), "%s/hsaqmd.conf", dmn.dir);
	snprintf(conf, sizeof(conf), "metrics_listen = 127.0.0.1:%d\n", g_port);
	if (g_port < 0 || write_file(dmn.config, conf))
		return -1;
	return t_daemon_start(&dmn) ? -1 : 0;
}

static int suite_fini(void)
{
	t_daemon_fini(&dmn);
	return 0;
}

/* A process at @prio with one queue on gpu 9001, ready. */
static int ready_client(struct t_client *c, int prio)
{
	char line[256];

	if (t_client_start(c, &dmn, prio, T_SAME_UID, line, sizeof(line)) || strncmp(line, "open ok", 7))
		return -1;
	t_client_send(c, "add 9001");
	if (t_client_expect(c, "added 0", WAIT_MS, line, sizeof(line)))
		return -1;
	t_client_send(c, "ready 0");
	return 0;
}

static void test_hsaqmctl_metrics_pass_promtool(void)
{
	struct t_client hi, lo;
	char out[65536], path[128], key[128];
	const char *metrics[] = { t_bins.hsaqmctl, "--socket", dmn.sock, "metrics", NULL };
	const char *check[] = { "/bin/sh", "-c", "exec " PROMTOOL " check metrics < \"$0\"", path,
				NULL };

	CU_ASSERT_FATAL(ready_client(&lo, 0) == 0);
	CU_ASSERT_FATAL(ready_client(&hi, 10) == 0);
	CU_ASSERT_FATAL(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	CU_ASSERT_EQUAL_FATAL(t_exec(T_SAME_UID, false, 10000, out, sizeof(out), metrics), 0);
	snprintf(path, sizeof(path), "%s/metrics.txt", dmn.dir);
	CU_ASSERT_FATAL(write_file(path, out) == 0);
	snprintf(key, sizeof(key), "hsaqmd_queue_preemptions_total{pid=\"%d\",", (int)lo.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hsaqmd_handoff_seconds_bucket{segment=\"ready_acked\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hsaqmd_refusals_total{reason=\"uid_limit\"}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "mechanism=\"lv2\""));
	/* The real linter: format, names, types, units. */
	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 30000, out, sizeof(out), check), 0);
	if (out[0])
		printf("\n    promtool: %s", out);
	/* The endpoint serves the same text. */
	CU_ASSERT_EQUAL(http_get(g_port, "/metrics", out, sizeof(out)), 0);
	CU_ASSERT(!strncmp(out, "HTTP/1.0 200 OK", 15));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "text/plain; version=0.0.4"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	CU_ASSERT_EQUAL(http_get(g_port, "/other", out, sizeof(out)), 0);
	CU_ASSERT(!strncmp(out, "HTTP/1.0 404", 12));
	unlink(path);
	t_client_stop(&hi);
	t_client_stop(&lo);
}

/* The value of the first sample of a Prometheus API answer, or -1 when there is none. */
static double api_value(const char *json)
{
	const char *p = strstr(json, "\"value\":[");

	p = p ? strchr(p, ',') : NULL;
	return p ? strtod(p + 2, NULL) : -1;
}

static pid_t prometheus_start(const char *dir, int web, int target)
{
	char conf[160], data[160], flag_conf[200], flag_data[200], flag_web[64], yml[512];
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/prometheus.yml", dir);
	snprintf(data, sizeof(data), "%s/prom-data", dir);
	snprintf(yml, sizeof(yml),
		 "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
		 "scrape_configs:\n  - job_name: hsaqmd\n    static_configs:\n"
		 "      - targets: ['127.0.0.1:%d']\n", target);
	if (write_file(conf, yml) || mkdir(data, 0755))
		return -1;
	snprintf(flag_conf, sizeof(flag_conf), "--config.file=%s", conf);
	snprintf(flag_data, sizeof(flag_data), "--storage.tsdb.path=%s", data);
	snprintf(flag_web, sizeof(flag_web), "--web.listen-address=127.0.0.1:%d", web);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(PROMETHEUS, PROMETHEUS, flag_conf, flag_data, flag_web, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Ask Prometheus @query until @want(value) holds, up to @seconds. The last value. */
static double query_until(int web, const char *query, bool (*want)(double), int seconds)
{
	char path[512], out[16384], q[256];
	size_t n = 0;
	double v = -1;

	/* URL-encode what a query has: braces, quotes, equals. */
	for (const char *c = query; *c && n < sizeof(q) - 4; c++)
		n += (size_t)((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'
				      ? snprintf(q + n, sizeof(q) - n, "%c", *c)
				      : snprintf(q + n, sizeof(q) - n, "%%%02X", (unsigned char)*c));
	snprintf(path, sizeof(path), "/api/v1/query?query=%s", q);
	/* Each look is an HTTP query, and Prometheus scrapes every second: 4 a second. */
	T_UNTIL_EVERY(http_get(web, path, out, sizeof(out)) == 0 &&
			      strstr(out, "\"status\":\"success\"") && want(v = api_value(out)),
		      (uint64_t)seconds * T_S, 250 * T_MS);
	return v;
}

static bool at_least_one(double v)
{
	return v >= 1;
}

static bool gone(double v)
{
	return v < 0;
}

static void test_prometheus_scrapes_the_endpoint_and_series_go_with_their_process(void)
{
	struct t_client hi, lo;
	char query[128];
	int web = free_port(), status;
	pid_t prom;
	double v;

	CU_ASSERT_FATAL(ready_client(&lo, 0) == 0);
	CU_ASSERT_FATAL(ready_client(&hi, 10) == 0);
	CU_ASSERT_FATAL(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	prom = prometheus_start(dmn.dir, web, g_port);
	CU_ASSERT_FATAL(prom > 0);
	v = query_until(web, "hsaqmd_up", at_least_one, 90);
	CU_ASSERT_EQUAL(v, 1);
	snprintf(query, sizeof(query), "hsaqmd_queue_preemptions_total{pid=\"%d\"}", (int)lo.pid);
	v = query_until(web, query, at_least_one, 30);
	printf("\n    Prometheus: %s = %g", query, v);
	CU_ASSERT(v >= 1);
	/* The process leaves: its series is stale at the next scrape, the query returns none. */
	t_client_stop(&lo);
	v = query_until(web, query, gone, 30);
	CU_ASSERT(v < 0);
	t_client_stop(&hi);
	kill(prom, SIGTERM);
	/* Its grace to end on SIGTERM: 5 s, then SIGKILL. */
	if (!T_UNTIL_EVERY(waitpid(prom, &status, WNOHANG) != 0, 5 * T_S, 10 * T_MS)) {
		kill(prom, SIGKILL);
		waitpid(prom, &status, 0);
	}
	char rm[200];

	snprintf(rm, sizeof(rm), "rm -rf '%s/prom-data' '%s/prometheus.yml'", dmn.dir, dmn.dir);
	CU_ASSERT_EQUAL(system(rm), 0);
}

/*
 * Connections to the endpoint that send no request, and more than it takes at once, cost the
 * reaction path nothing: a preemption meanwhile takes its usual time; they are dropped (at
 * once past 8, after 2 s without a request) and counted.
 */
static void test_idle_or_excess_metrics_connections_never_delay_a_preemption(void)
{
	struct t_client hi, lo;
	char line[256], out[65536];
	int fds[20];
	uint64_t t0, dt;

	for (int i = 0; i < 20; i++)
		fds[i] = tcp_connect(g_port);
	CU_ASSERT_FATAL(ready_client(&lo, 0) == 0);
	CU_ASSERT_FATAL(t_client_start(&hi, &dmn, 10, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&hi, "add 9001");
	CU_ASSERT_FATAL(t_client_sees(&hi, "added 0", WAIT_MS));
	t0 = t_mono_ns();
	t_client_send(&hi, "ready 0");
	CU_ASSERT_FATAL(t_client_expect(&lo, "ev preempt 0", WAIT_MS, line, sizeof(line)) == 0);
	dt = t_event_time(line) - t0;
	printf("\n    20 silent metrics connections: preemption %.2f ms", dt / 1e6);
	/* Idle: ~0.1 ms. One read blocked on a silent connection would cost its 2 s deadline;
	 * below half of that, the rest is room for a loaded machine, not for hsaqm. */
	CU_ASSERT(dt < 1000 * 1000000ull);
	for (int i = 0; i < 20; i++) {
		char c;
		struct pollfd p = { .fd = fds[i], .events = POLLIN };

		/* Closed by the daemon (the excess at once, the rest at the 2 s request deadline):
		 * readable, and the end of the stream (or a reset). 10 s is where the test gives up. */
		CU_ASSERT(fds[i] >= 0 && poll(&p, 1, 10000) == 1 && read(fds[i], &c, 1) <= 0);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	CU_ASSERT_EQUAL(http_get(g_port, "/metrics", out, sizeof(out)), 0);
	static const char key[] = "\nhsaqmd_metrics_connections_dropped_total ";
	char *p = strstr(out, key);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	printf(", %d dropped", atoi(p + sizeof(key) - 1));
	CU_ASSERT(atoi(p + sizeof(key) - 1) >= 20);
	t_client_stop(&hi);
	t_client_stop(&lo);
}

/* A second daemon on the same port, and a port not on loopback: refused, saying why. */
static void test_a_refused_metrics_bind_says_why(void)
{
	char conf[128], sock[128], out[2048], text[128];
	const char *argv[] = { t_bins.hsaqmd, "--socket", sock, "--config", conf, NULL };

	snprintf(conf, sizeof(conf), "%s/second.conf", dmn.dir);
	snprintf(sock, sizeof(sock), "%s/second.sock", dmn.dir);
	snprintf(text, sizeof(text), "metrics_listen = 127.0.0.1:%d\n", g_port);
	CU_ASSERT_FATAL(write_file(conf, text) == 0);
	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 10000, out, sizeof(out), argv), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot bind: Address already in use"));
	snprintf(text, sizeof(text), "metrics_listen = 0.0.0.0:%d\n", free_port());
	CU_ASSERT_FATAL(write_file(conf, text) == 0);
	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 10000, out, sizeof(out), argv), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is not a loopback address"));
	unlink(conf);
	unlink(sock);
}

static const struct t_case cases[] = {
	T_CASE(test_hsaqmctl_metrics_pass_promtool),
	T_CASE(test_idle_or_excess_metrics_connections_never_delay_a_preemption),
	T_CASE(test_a_refused_metrics_bind_says_why),
	T_CASE(test_prometheus_scrapes_the_endpoint_and_series_go_with_their_process),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-metrics", suite_init, suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, ""))
		return T_EXIT_FAIL;
	if (access(PROMETHEUS, X_OK) || access(PROMTOOL, X_OK))
		return t_skip("hsaqmd-metrics", "needs Debian's prometheus (prometheus, promtool): "
					       "scripts/ensure-deps installs it");
	return t_run("hsaqmd-metrics", suites);
}
