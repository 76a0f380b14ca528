/* SPDX-License-Identifier: MIT */
/*
 * t_hsaqmd_security.h - the setup of the second-uid tests of hsaqmd (test-hsaqmd-security-*):
 * one daemon per binary whose configuration caps nobody at 3 and everyone else non-root at 0.
 * The second uid is nobody (a forked child that setuid()s), others are uids without a name; so
 * these need root: skipped (77) otherwise. Header-only; include once.
 */
#ifndef T_HSAQMD_SECURITY_H
#define T_HSAQMD_SECURITY_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-dclient/proto.h"

#include "t_cunit.h"
#include "t_proc.h"

#define T_WAIT_MS 5000
#define T_OTHER_UID 1234u /* no cap line: the default cap */

static struct t_daemon t_dmn;

static inline int t_security_suite_init(void)
{
	FILE *f;

	if (t_daemon_init(&t_dmn))
		return -1;
	snprintf(t_dmn.config, sizeof(t_dmn.config), "%s/hsaqmd.conf", t_dmn.dir);
	f = fopen(t_dmn.config, "w");
	if (!f)
		return -1;
	fprintf(f, "# nobody may go up to 3; everyone else non-root to 0\n"
		   "cap.default = 0\ncap.%u = 3\n", T_NOBODY);
	fclose(f);
	return t_daemon_start(&t_dmn) ? -1 : 0;
}

static inline int t_security_suite_fini(void)
{
	t_daemon_fini(&t_dmn);
	return 0;
}

#endif /* T_HSAQMD_SECURITY_H */
