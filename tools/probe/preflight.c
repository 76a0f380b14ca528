// SPDX-License-Identifier: MIT
/*
 * preflight.c - what rocminfo checks before touching the runtime, but with advice a user can
 * act on: is amdgpu live, does /dev/kfd exist and open, which group owns it and is the user in
 * it, is debugfs mounted (optional), and then the KFD's interface version, sched_policy and
 * cwsr_enable with what each means for preemption.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe_internal.h"

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool user_in_group(gid_t gid)
{
	gid_t groups[NGROUPS_MAX];
	int n;

	if (getegid() == gid || geteuid() == 0)
		return true;
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

static bool debugfs_mounted(const char *root)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[PATH_MAX], type[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		found = !strcmp(type, "debugfs") && !strcmp(dir, root);
	fclose(f);
	return found;
}

void probe_preflight(struct probe_ctx *c)
{
	const struct hsaqm_probe_env *env = c->env;
	struct hsaqm_probe_report *r = c->r;
	const char *sys = env->host_sysfs_root ? env->host_sysfs_root : "/sys";
	const char *kfd = env->host_dev_kfd ? env->host_dev_kfd : "/dev/kfd";
	const char *dbg = env->host_debugfs_root ? env->host_debugfs_root : "/sys/kernel/debug";
	char path[PATH_MAX], line[64];
	struct stat st;

	/* The module: initstate "live" once amdgpu finished loading (a built-in has none). */
	snprintf(path, sizeof(path), "%s/module/amdgpu/initstate", sys);
	if (read_line(path, line, sizeof(line))) {
		if (!strcmp(line, "live"))
			probe_add_finding(r, HSAQM_PROBE_OK, "module", "", "amdgpu module: live");
		else
			probe_add_finding(r, HSAQM_PROBE_FAIL, "module",
					  "wait for amdgpu to finish loading; check "
					  "`dmesg | grep amdgpu`",
					  "amdgpu module: %s", line);
	} else {
		snprintf(path, sizeof(path), "%s/module/amdgpu", sys);
		if (stat(path, &st) == 0)
			probe_add_finding(r, HSAQM_PROBE_OK, "module", "",
					  "amdgpu: built into the kernel");
		else
			probe_add_finding(r, HSAQM_PROBE_FAIL, "module",
					  "on a machine with an AMD GPU: `sudo modprobe amdgpu`, "
					  "then check `dmesg | grep -i amdgpu` for firmware errors",
					  "amdgpu module: not loaded");
	}

	/* /dev/kfd: exists, its group, the user in it, opens. */
	if (stat(kfd, &st)) {
		int e = errno;

		probe_add_finding(r, HSAQM_PROBE_FAIL, "dev_kfd",
				  "load amdgpu on a machine with an AMD GPU (kernel built with "
				  "CONFIG_HSA_AMD); in a container, pass --device=/dev/kfd",
				  "%s: %s", kfd, strerror(e));
		return;
	}
	struct group *g = getgrgid(st.st_gid);
	const char *gname = g ? g->gr_name : "?";
	bool member = user_in_group(st.st_gid);
	char remedy[200];

	snprintf(remedy, sizeof(remedy), "`sudo usermod -aG %s $USER`, then log in again", gname);
	probe_add_finding(r, member ? HSAQM_PROBE_OK : HSAQM_PROBE_FAIL, "group",
			  member ? "" : remedy, "%s is owned by group %s (gid %u); this user %s",
			  kfd, gname, (unsigned int)st.st_gid,
			  member ? "is in it" : "is NOT in it");
	int fd = open(kfd, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		probe_add_finding(r, HSAQM_PROBE_FAIL, "dev_kfd",
				  e == EACCES || e == EPERM ? remedy :
							      "check `dmesg | grep kfd`",
				  "%s cannot be opened: %s", kfd, strerror(e));
	} else {
		close(fd);
		probe_add_finding(r, HSAQM_PROBE_OK, "dev_kfd", "", "%s opens", kfd);
	}

	/* debugfs is optional: it only adds the per-HQD and runlist views (root). */
	if (!debugfs_mounted(dbg)) {
		probe_add_finding(r, HSAQM_PROBE_WARN, "debugfs",
				  "optional: `sudo mount -t debugfs none /sys/kernel/debug`",
				  "debugfs is not mounted at %s (no per-HQD view)", dbg);
	} else {
		snprintf(path, sizeof(path), "%s/kfd/hqds", dbg);
		if (access(path, R_OK))
			probe_add_finding(r, HSAQM_PROBE_WARN, "debugfs",
					  "optional: run as root to see HQDs and runlists",
					  "debugfs is mounted but %s is not readable", path);
		else
			probe_add_finding(r, HSAQM_PROBE_OK, "debugfs", "",
					  "debugfs: kfd/hqds and kfd/rls readable");
	}
}

/*
 * One knob of the target's KFD as a finding, in the words of kfd-ioctl's Lv3 decision (the
 * one the HSA backend takes): the decision is asked about that knob alone, the others taken
 * as fine, so each finding names its own cause and remedy.
 */
static void knob_finding(struct probe_ctx *c, const char *what, const char *ok_text,
			 const struct hsaqm_kfd_lv3_facts *knob)
{
	struct hsaqm_kfd_lv3 d;
	const struct hsaqm_kfd_mech_verdict *v;

	hsaqm_kfd_lv3_decide(knob, HSAQM_KFD_PREF_AUTO, &d);
	v = &d.each[HSAQM_KFD_MECH_DBG_TRAP];
	if (v->ok)
		probe_add_finding(c->r, HSAQM_PROBE_OK, what, "", "%s", ok_text);
	else
		probe_add_finding(c->r, HSAQM_PROBE_WARN, what, v->remedy, "%s%s", v->why,
				  d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].ok ?
					  " (Lv3 through UPDATE_QUEUE remains)" : "");
}

/* The target's KFD, when it is real hardware: version, scheduler, CWSR, with what they mean. */
void probe_preflight_target(struct probe_ctx *c)
{
	struct hsaqm_probe_report *r = c->r;
	struct hsaqm_kfd_lv3_facts base, f;
	char text[128];

	if (r->is_model || !r->kfd_open)
		return;
	/* Every knob fine but the one asked about. */
	hsaqm_kfd_lv3_facts_init(&base);
	base.kfd_err = 0;
	base.kfd_major = 1;
	base.kfd_minor = 13;

	f = base;
	f.kfd_major = r->kfd_major;
	f.kfd_minor = r->kfd_minor;
	snprintf(text, sizeof(text), "KFD ioctl interface %u.%u (DBG_TRAP available)",
		 r->kfd_major, r->kfd_minor);
	knob_finding(c, "kfd_version", text, &f);
	if (r->sched_policy >= 0) {
		f = base;
		f.sched_policy = r->sched_policy;
		snprintf(text, sizeof(text), "sched_policy %d (%s)", r->sched_policy,
			 r->sched_policy == 0 ? "HWS" : "HWS without oversubscription");
		knob_finding(c, "sched_policy", text, &f);
	}
	if (r->cwsr_enable >= 0) {
		f = base;
		f.cwsr_enable = r->cwsr_enable;
		knob_finding(c, "cwsr_enable", "cwsr_enable 1", &f);
	}
}
