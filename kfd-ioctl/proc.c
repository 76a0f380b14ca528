// SPDX-License-Identifier: MIT
/*
 * proc.c - the KFD's per-process view in sysfs: <root>/class/kfd/kfd/proc/<pid>/queues/<id>/
 * with "size" (ring bytes), "type" and "gpuid", printed without a newline (amdkfd
 * kfd_process.c, kfd_procfs_add_queue; the folders exist while the queues do, readable by
 * anyone). Two readers: hsa-queue-probe counts other processes' queues on a GPU before a
 * stop, and the HSA backend finds the KFD id of a queue its runtime made by listing before
 * and after the creation (hsaqm_kfd_proc_queue_new), which needs no debugger session.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-kfd/kfd_transport.h"

/* An attribute file's number; false when missing or not a number. */
static bool read_u64(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX], buf[32], *end;
	FILE *f;
	bool ok = false;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		*v = strtoull(buf, &end, 10);
		ok = end != buf;
	}
	fclose(f);
	return ok;
}

static bool number(const char *s, long *out)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	*out = strtol(s, &end, 10);
	return !*end;
}

/* Append the queues of one pid folder. */
static int scan_pid(const char *procdir, long pid, struct hsaqm_kfd_proc_queue **v,
		    uint32_t *n, uint32_t *cap)
{
	char qdir[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (snprintf(qdir, sizeof(qdir), "%s/%ld/queues", procdir, pid) >= (int)sizeof(qdir))
		return 0;
	d = opendir(qdir);
	if (!d)
		return 0; /* the process went away meanwhile */
	while ((e = readdir(d))) {
		char one[PATH_MAX];
		uint64_t gpu = 0, size = 0, type = 0;
		long id;

		if (!number(e->d_name, &id) || id < 0 || id > UINT32_MAX)
			continue;
		if (snprintf(one, sizeof(one), "%s/%s", qdir, e->d_name) >= (int)sizeof(one))
			continue;
		/* A queue destroyed between readdir and now has no files: skip it. */
		if (!read_u64(one, "gpuid", &gpu) || !read_u64(one, "size", &size))
			continue;
		read_u64(one, "type", &type);
		if (*n == *cap) {
			uint32_t nc = *cap ? *cap * 2 : 16;
			struct hsaqm_kfd_proc_queue *nv = realloc(*v, nc * sizeof(*nv));

			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = (struct hsaqm_kfd_proc_queue){
			.pid = (uint32_t)pid, .queue_id = (uint32_t)id, .gpu_id = (uint32_t)gpu,
			.type = (uint32_t)type, .size = size,
		};
	}
	closedir(d);
	return 0;
}

int hsaqm_kfd_proc_queues(const struct hsaqm_kfd_transport *tp, long pid,
			  struct hsaqm_kfd_proc_queue **out, uint32_t *n)
{
	struct hsaqm_kfd_proc_queue *v = NULL;
	uint32_t cap = 0;
	char procdir[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int err = 0;

	if (!tp || !out || !n)
		return -EINVAL;
	*out = NULL;
	*n = 0;
	if (tp->proc_refresh) {
		err = tp->proc_refresh(tp->ctx);
		if (err)
			return err;
	}
	if (snprintf(procdir, sizeof(procdir), "%s/class/kfd/kfd/proc",
		     tp->sysfs_root ? tp->sysfs_root : "/sys") >= (int)sizeof(procdir))
		return -ENAMETOOLONG;
	if (pid >= 0) {
		d = opendir(procdir);
		if (!d)
			return -ENOENT;
		closedir(d);
		err = scan_pid(procdir, pid, &v, n, &cap);
	} else {
		d = opendir(procdir);
		if (!d)
			return -ENOENT;
		while (!err && (e = readdir(d))) {
			long p;

			if (number(e->d_name, &p) && p > 0)
				err = scan_pid(procdir, p, &v, n, &cap);
		}
		closedir(d);
	}
	if (err) {
		free(v);
		*n = 0;
		return err;
	}
	*out = v;
	return 0;
}

static bool listed(const struct hsaqm_kfd_proc_queue *v, uint32_t n,
		   const struct hsaqm_kfd_proc_queue *q)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i].pid == q->pid && v[i].queue_id == q->queue_id)
			return true;
	return false;
}

int hsaqm_kfd_proc_queue_new(const struct hsaqm_kfd_proc_queue *before, uint32_t nbefore,
			     const struct hsaqm_kfd_proc_queue *after, uint32_t nafter,
			     uint32_t gpu_id, uint64_t size, uint32_t *id)
{
	uint32_t found = 0, cand = 0;

	if ((nbefore && !before) || (nafter && !after) || !id)
		return -EINVAL;
	for (uint32_t i = 0; i < nafter; i++) {
		const struct hsaqm_kfd_proc_queue *q = &after[i];

		if (q->gpu_id != gpu_id || q->size != size || listed(before, nbefore, q))
			continue;
		cand = q->queue_id;
		found++;
	}
	if (!found)
		return -ENOENT;
	if (found > 1)
		return -EEXIST;
	*id = cand;
	return 0;
}
