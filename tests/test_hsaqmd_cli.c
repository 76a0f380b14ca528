/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd and hsaqmctl refuse bad input, naming it: each bad hsaqmctl argument (exit 2), a
 * --ready-fd that is not one, a config with a NUL byte (at its line), and one policy syntax for
 * the tool, the config and hsaqmctl.
 *
 * Usage (meson passes the binaries): test-hsaqmd-* HSAQMD HSAQMCTL T-DCLIENT [--busy-poll]
 * With --busy-poll every case runs against a daemon started with it (docs/daemon.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_hsaqmd.h"

/* Issue 18 item 7: a NUL byte would hide every line after it: refused with FILE:LINE. */
static void test_a_config_with_a_nul_byte_is_refused_at_its_line(void)
{
	static const char text[] = "cap.default = 0\n\0cap.default = 50\n";
	struct hsaqmd_config cfg;
	char conf[128], sock[128], out[2048], expect[160], err[256];

	hsaqmd_config_default(&cfg);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&cfg, text, sizeof(text) - 1, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "2: a NUL byte"));
	snprintf(conf, sizeof(conf), "%s/nul.conf", t_dmn.dir);
	snprintf(sock, sizeof(sock), "%s/nul.sock", t_dmn.dir);
	int fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", sock), 2);
	snprintf(expect, sizeof(expect), "hsaqmd: %s:2: a NUL byte", conf);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_EQUAL(access(sock, F_OK), -1); /* it never started */
	unlink(conf);
}

/*
 * Issue 17: every malformed hsaqmctl argument gets one line naming it and exit 2 (not the
 * usage alone, not a dropped connection, not a loop): `top abc` used to run forever, `top -1`
 * exited 0 silently, `set-priority PID 101` made the daemon hang up.
 */
static void test_hsaqmctl_names_each_bad_argument_and_exits_2(void)
{
	static const struct {
		const char *args[6];
		const char *named;
	} forms[] = {
		{ { "bogus" }, "\"bogus\"" },
		{ { "list", "extra" }, "\"extra\"" },
		{ { "list", "--jsn" }, "\"--jsn\"" },
		{ { "list", "--json", "x" }, "\"x\"" },
		{ { "stats", "x" }, "\"x\"" },
		{ { "set-priority" }, "set-priority takes" },
		{ { "set-priority", "1" }, "set-priority takes" },
		{ { "set-priority", "abc", "1" }, "\"abc\"" },
		{ { "set-priority", "1", "abc" }, "\"abc\"" },
		{ { "set-priority", "q", "1" }, "\"q\"" },
		{ { "set-priority", "qx", "1" }, "\"qx\"" },
		{ { "set-priority", "1", "2", "3" }, "\"3\"" },
		{ { "set-priority", "1", "101" }, "\"101\"" },
		{ { "set-priority", "q1", "201" }, "\"201\"" },
		{ { "set-priority", "-5", "1" }, "\"-5\"" },
		/* lib/text_internal.h's numbers: no blank, no '+', no octal gpu_id. */
		{ { "set-priority", " 5", "1" }, "\" 5\"" },
		{ { "set-priority", "1", "+5" }, "\"+5\"" },
		{ { "set-priority", "q+1", "5" }, "\"q+1\"" },
		{ { "policy", "010", "hpf" }, "\"010\"" },
		{ { "policy", "0x", "hpf" }, "\"0x\"" },
		{ { "policy", " 7", "hpf" }, "\" 7\"" },
		{ { "policy", "abc", "hpf" }, "\"abc\"" },
		{ { "policy", "-1", "hpf" }, "\"-1\"" },
		{ { "policy", "all" }, "which policy" },
		{ { "policy", "all", "bogus" }, "\"bogus\"" },
		{ { "policy", "all", "hpf", "1" }, "\"hpf 1\"" },
		{ { "policy", "all", "hpf", "10", "20" }, "\"hpf 10 20\"" },
		{ { "policy", "all", "util", "x" }, "\"util x\"" },
		{ { "policy", "all", "none", "1" }, "\"none 1\"" },
		{ { "top", "abc" }, "\"abc\"" },
		{ { "top", "-1" }, "\"-1\"" },
		{ { "top", "0" }, "\"0\"" },
		{ { "top", "1", "2" }, "\"2\"" },
		{ { "metrics", "x" }, "\"x\"" },
	};
	char out[2048];

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *argv[10] = { t_bins.hsaqmctl, "--socket", t_dmn.sock };
		int n = 3, rc;

		for (int k = 0; k < 6 && forms[i].args[k]; k++)
			argv[n++] = forms[i].args[k];
		argv[n] = NULL;
		rc = t_exec(T_SAME_UID, false, 5000, out, sizeof(out), argv);
		if (rc != 2 || strncmp(out, "hsaqmctl: ", 10) || !strstr(out, forms[i].named) ||
		    strchr(out, '\n') != out + strlen(out) - 1)
			printf("\n    form %zu (%s %s ...): exit %d, said: %s", i, forms[i].args[0],
			       forms[i].args[1] ? forms[i].args[1] : "", rc, out);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, forms[i].named));
		/* One line, not the usage. */
		CU_ASSERT_PTR_NULL(strstr(out, "usage:"));
		CU_ASSERT(strchr(out, '\n') == out + strlen(out) - 1);
	}
	/* "--socket" without its path, before the command. */
	const char *nosock[] = { t_bins.hsaqmctl, "--socket", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), nosock), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--socket needs a path"));
	/* A refusal is said for what was asked: set-priority's, not the policy's. */
	const char *noq[] = { t_bins.hsaqmctl, "--socket", t_dmn.sock, "set-priority", "q999999",
			      "1", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), noq), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no such process or queue"));
	/* The old "hpf PERIOD SLICE" still works, and says it is deprecated. */
	const char *old[] = { t_bins.hsaqmctl, "--socket", t_dmn.sock, "policy", "18001", "hpf",
			      "10000", "1000", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), old), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "deprecated: write \"hpf 10000:1000\""));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "policy", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpu 18001    hpf 10000:1000"));
}

/* Issue 17: hsaqmd --ready-fd abc wrote "ready" to fd 0; now it says which argument. */
static void test_hsaqmd_refuses_a_ready_fd_that_is_not_one(void)
{
	char out[1024], sock[128];

	snprintf(sock, sizeof(sock), "%s/rfd.sock", t_dmn.dir);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--ready-fd", "abc", "--socket", sock), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--ready-fd \"abc\" is not an open file descriptor"));
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--ready-fd", "987", "--socket", sock), 2);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--socket", sock, "extra", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"extra\""));
	CU_ASSERT_EQUAL(access(sock, F_OK), -1);
}

/*
 * Issue 17: one policy syntax (lib/policy_text_internal.h) for HSAQM_POLICY, hsaqmd.conf and
 * hsaqmctl; the old conf/ctl form "hpf PERIOD SLICE" still read, flagged deprecated.
 */
static void test_one_policy_syntax_for_the_tool_the_config_and_hsaqmctl(void)
{
	static const struct {
		const char *text;
		int rc;
		bool old;
		const char *back;
	} cases[] = {
		{ "hpf", 0, false, "hpf" },
		{ "HPF 100000:5000", 0, false, "hpf 100000:5000" },
		{ "  util\t20000 ", 0, false, "util 20000" },
		{ "util", 0, false, "util" },
		{ "none", 0, false, "none" },
		{ "hpf 100000 5000", 0, true, "hpf 100000:5000" },
		{ "hpf 5:10", -EINVAL, false, NULL },
		{ "hpf 10:10", -EINVAL, false, NULL },
		{ "hpf 0:0", -EINVAL, false, NULL },
		{ "hpf 100000", -EINVAL, false, NULL },
		{ "hpf 1:x", -EINVAL, false, NULL },
		{ "hpf 200000000:1", -EINVAL, false, NULL },
		{ "util 0", -EINVAL, false, NULL },
		{ "util 1 2", -EINVAL, false, NULL },
		{ "none 1", -EINVAL, false, NULL },
		{ "fifo", -EINVAL, false, NULL },
		{ "", -EINVAL, false, NULL },
	};
	struct hsaqm_policy_config cfg;
	char buf[64], why[128];
	bool old;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = hsaqm_policy_parse(cases[i].text, &cfg, &old, why, sizeof(why));

		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (rc)
			continue;
		CU_ASSERT_EQUAL(old, cases[i].old);
		CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), 0);
		hsaqm_policy_format(&cfg, buf, sizeof(buf));
		CU_ASSERT_STRING_EQUAL(buf, cases[i].back);
	}
	/* The configuration takes the same text; its old form starts, with one line. */
	struct hsaqmd_config c;
	char err[256], conf[128], sock[128], out[2048];
	static const char text[] = "policy.default = hpf 100000:5000\npolicy.7 = util 20000\n";

	hsaqmd_config_default(&c);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&c, text, strlen(text), err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 100000u);
	CU_ASSERT_EQUAL(c.policies[0].cfg.util_period_us, 20000u);
	CU_ASSERT_EQUAL(c.deprecated_line, 0);
	snprintf(conf, sizeof(conf), "%s/old.conf", t_dmn.dir);
	snprintf(sock, sizeof(sock), "%s/old.sock", t_dmn.dir);
	int fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "\npolicy.default = hpf 100000 5000\n", 34) == 34);
	close(fd);
	/* A file at the socket's path: it reads the configuration, says its line, exits. */
	fd = open(sock, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	close(fd);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", sock), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ":2: \"hpf PERIOD SLICE\" is deprecated"));
	unlink(sock);
	unlink(conf);
}

static const struct t_case cases[] = {
	T_CASE(test_hsaqmctl_names_each_bad_argument_and_exits_2),
	T_CASE(test_hsaqmd_refuses_a_ready_fd_that_is_not_one),
	T_CASE(test_one_policy_syntax_for_the_tool_the_config_and_hsaqmctl),
	T_CASE(test_a_config_with_a_nul_byte_is_refused_at_its_line),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-cli", t_hsaqmd_suite_init, t_hsaqmd_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, "[DAEMON-OPTION]"))
		return T_EXIT_FAIL;
	t_bins.daemon_flag = argc > 4 ? argv[4] : NULL;
	return t_run("hsaqmd-cli", suites);
}
