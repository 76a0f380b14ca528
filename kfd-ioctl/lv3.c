// SPDX-License-Identifier: MIT
/*
 * lv3.c - Lv3 decided once (hsaqm-kfd/kfd_lv3.h): the facts a GPU's mid-kernel suspension depends
 * on, the one decision the HSA backend and hsa-queue-probe both take from them, and the
 * UPDATE_QUEUE suspension (percentage 0 / 100) that needs no debugger.
 *
 * Sources (facts only): amdkfd kfd_chardev.c (DBG_TRAP needs RUNTIME_ENABLE: EPERM; refuses
 * sched_policy 2: EINVAL), kfd_debug.c (one debugger per process: EALREADY),
 * kfd_device_queue_manager.c (update_queue() and suspend_queues() both unmap every dynamic
 * queue of the device; a queue deactivated without CWSR is drained, not saved), and ROCr
 * amd_aql_queue.cpp (AqlQueue::Suspend/Resume: UpdateQueue with percentage 0 and 100 and the
 * queue's own ring and priority).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"

/* Remedies, in one place (the probe shows them as they are). */
#define REMEDY_KFD_OLD                                                                         \
	"DBG_TRAP needs KFD ioctl 1.13: Linux 6.4 or later, or the amdgpu-dkms of ROCm 6.x"
#define REMEDY_NO_HWS "reload amdgpu with sched_policy=0 (kernel command line amdgpu.sched_policy=0)"
#define REMEDY_CWSR "reload amdgpu with cwsr_enable=1 (kernel command line amdgpu.cwsr_enable=1)"
#define REMEDY_FW "update the GPU firmware (linux-firmware, or the amdgpu-dkms-firmware of ROCm)"
#define REMEDY_EPERM                                                                           \
	"the runtime must enable the KFD debugger interface (RUNTIME_ENABLE, done by ROCr 6.x on " \
	"Linux 6.4+ / amdgpu-dkms); UPDATE_QUEUE needs no debugger"
#define REMEDY_EALREADY                                                                        \
	"detach the debugger or profiler holding DBG_TRAP (rocgdb, a rocprofiler tool); "       \
	"UPDATE_QUEUE needs no debugger"
#define REMEDY_KFD "load amdgpu with KFD; in a container pass --device=/dev/kfd; join the render group"

static const char *const mech_names[HSAQM_KFD_NMECH] = { "none", "dbg_trap", "update_queue",
							 "cu_mask" };
static const char *const pref_names[] = { "auto", "dbg_trap", "update_queue", "none" };

const char *hsaqm_kfd_mech_name(enum hsaqm_kfd_mech m)
{
	return (unsigned int)m < HSAQM_KFD_NMECH ? mech_names[m] : "?";
}

const char *hsaqm_kfd_mech_pref_name(enum hsaqm_kfd_mech_pref p)
{
	return (unsigned int)p < sizeof(pref_names) / sizeof(pref_names[0]) ? pref_names[p] : "?";
}

int hsaqm_kfd_mech_pref_parse(const char *text, enum hsaqm_kfd_mech_pref *out)
{
	if (!text || !out)
		return -EINVAL;
	for (unsigned int i = 0; i < sizeof(pref_names) / sizeof(pref_names[0]); i++) {
		if (!strcmp(text, pref_names[i])) {
			*out = (enum hsaqm_kfd_mech_pref)i;
			return 0;
		}
	}
	return -EINVAL;
}

void hsaqm_kfd_lv3_facts_init(struct hsaqm_kfd_lv3_facts *f)
{
	if (!f)
		return;
	memset(f, 0, sizeof(*f));
	f->kfd_err = -ENODEV;
	snprintf(f->kfd_path, sizeof(f->kfd_path), "/dev/kfd");
	f->sched_policy = -1;
	f->cwsr_enable = -1;
	f->node_id = UINT32_MAX;
	for (unsigned int i = 0; i < HSAQM_KFD_NMECH; i++)
		f->profile[i] = HSAQM_KFD_PROFILE_UNKNOWN;
}

int hsaqm_kfd_lv3_facts_read(struct hsaqm_kfd *kfd, int kfd_err, const char *sysfs_root,
			     uint32_t node_id, struct hsaqm_kfd_lv3_facts *f)
{
	struct hsaqm_kfd_module_params mp;
	struct hsaqm_topology_node node;

	if (!f)
		return -EINVAL;
	hsaqm_kfd_lv3_facts_init(f);
	f->kfd_err = kfd ? 0 : (kfd_err ? kfd_err : -ENODEV);
	if (kfd) {
		const struct hsaqm_kfd_transport *tp = hsaqm_kfd_transport_of(kfd);

		if (tp && tp->dev_path)
			snprintf(f->kfd_path, sizeof(f->kfd_path), "%s", tp->dev_path);
		hsaqm_kfd_get_version(kfd, &f->kfd_major, &f->kfd_minor);
	}
	if (sysfs_root && hsaqm_topology_module_params(sysfs_root, &mp) == 0) {
		if (mp.present & HSAQM_KFD_PARAM_SCHED_POLICY)
			f->sched_policy = mp.sched_policy;
		if (mp.present & HSAQM_KFD_PARAM_CWSR_ENABLE)
			f->cwsr_enable = mp.cwsr_enable;
	}
	f->node_id = node_id;
	if (sysfs_root && node_id != UINT32_MAX &&
	    hsaqm_topology_node_load(sysfs_root, node_id, &node) == 0) {
		f->node_known = true;
		f->capability = node.capability;
	}
	return 0;
}

static void verdict(struct hsaqm_kfd_mech_verdict *v, bool ok, const char *code,
		    const char *remedy, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void verdict(struct hsaqm_kfd_mech_verdict *v, bool ok, const char *code,
		    const char *remedy, const char *fmt, ...)
{
	va_list ap;

	v->ok = ok;
	snprintf(v->code, sizeof(v->code), "%s", code);
	snprintf(v->remedy, sizeof(v->remedy), "%s", remedy ? remedy : "");
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

static const char *err_name(int err)
{
	switch (err) {
	case -EPERM:
		return "EPERM";
	case -EALREADY:
		return "EALREADY";
	case -EINVAL:
		return "EINVAL";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP";
	case -ENOTTY:
		return "ENOTTY";
	case -EFAULT:
		return "EFAULT";
	case -EBUSY:
		return "EBUSY";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

/* The refusal of a mechanism learned at run time, as a verdict. */
static void refused(struct hsaqm_kfd_mech_verdict *v, const char *what, int err)
{
	switch (err) {
	case -EALREADY:
		verdict(v, false, "debugger_attached", REMEDY_EALREADY,
			"another debugger (rocgdb or a profiler) holds DBG_TRAP on this process "
			"(EALREADY)");
		break;
	case -EPERM:
	case -EACCES:
		verdict(v, false, "eperm", REMEDY_EPERM,
			"%s of the process's own queue refused with EPERM", what);
		break;
	case -EOPNOTSUPP:
	case -ENOTTY:
		verdict(v, false, "kfd_too_old", REMEDY_KFD_OLD, "%s unknown to this KFD", what);
		break;
	case -EINVAL:
		verdict(v, false, "kfd_refused", "", "%s refused with EINVAL", what);
		break;
	default:
		verdict(v, false, "stop_failed", "", "%s failed: %s", what, err_name(err));
	}
}

static void decide_dbg_trap(const struct hsaqm_kfd_lv3_facts *f, struct hsaqm_kfd_mech_verdict *v)
{
	if (f->kfd_err)
		verdict(v, false, "no_kfd", REMEDY_KFD, "cannot open the KFD %s (%s)", f->kfd_path,
			strerror(-f->kfd_err));
	else if (f->kfd_major != 1 || f->kfd_minor < 13)
		verdict(v, false, "kfd_too_old", REMEDY_KFD_OLD,
			"KFD ioctl interface %u.%u has no DBG_TRAP (needs 1.13)", f->kfd_major,
			f->kfd_minor);
	else if (f->sched_policy == 2)
		verdict(v, false, "no_hws", REMEDY_NO_HWS,
			"amdgpu sched_policy=2 (no hardware scheduler): DBG_TRAP refuses it");
	else if (f->cwsr_enable == 0)
		verdict(v, false, "cwsr_off", REMEDY_CWSR,
			"amdgpu cwsr_enable=0: running waves cannot be saved");
	else if (f->node_known && !(f->capability & HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT))
		verdict(v, false, "no_trap_debug", "",
			"KFD node %u lacks TRAP_DEBUG_SUPPORT (capability 0x%x)", f->node_id,
			f->capability);
	else if (f->node_known && !(f->capability & HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED))
		verdict(v, false, "trap_debug_firmware", REMEDY_FW,
			"the firmware of KFD node %u lacks TRAP_DEBUG_FIRMWARE_SUPPORTED", f->node_id);
	else if (f->dbg_err)
		refused(v, "DBG_TRAP SUSPEND_QUEUES", f->dbg_err);
	else if (f->profile[HSAQM_KFD_MECH_DBG_TRAP] == HSAQM_KFD_PROFILE_NO)
		verdict(v, false, "profile", "run hsa-queue-probe again to see why",
			"hsa-queue-probe's profile of this GPU says DBG_TRAP suspension does not work");
	else
		verdict(v, true, "ok", "", "DBG_TRAP: KFD %u.%u, HWS, CWSR, trap debug%s",
			f->kfd_major, f->kfd_minor,
			f->profile[HSAQM_KFD_MECH_DBG_TRAP] == HSAQM_KFD_PROFILE_YES ?
				", measured by hsa-queue-probe" : "");
}

static void decide_update_queue(const struct hsaqm_kfd_lv3_facts *f,
				struct hsaqm_kfd_mech_verdict *v)
{
	if (f->kfd_err)
		verdict(v, false, "no_kfd", REMEDY_KFD, "cannot open the KFD %s (%s)", f->kfd_path,
			strerror(-f->kfd_err));
	else if (f->cwsr_enable == 0)
		verdict(v, false, "cwsr_off", REMEDY_CWSR,
			"amdgpu cwsr_enable=0: a deactivated queue waits for its running waves");
	else if (f->update_err)
		refused(v, "UPDATE_QUEUE 0 %", f->update_err);
	else if (f->profile[HSAQM_KFD_MECH_UPDATE_QUEUE] == HSAQM_KFD_PROFILE_NO)
		verdict(v, false, "profile", "run hsa-queue-probe again to see why",
			"hsa-queue-probe's profile of this GPU says UPDATE_QUEUE suspension does not "
			"work");
	else
		verdict(v, true, "ok", "", "UPDATE_QUEUE: KFD %u.%u, CWSR, no debugger needed%s",
			f->kfd_major, f->kfd_minor,
			f->profile[HSAQM_KFD_MECH_UPDATE_QUEUE] == HSAQM_KFD_PROFILE_YES ?
				", measured by hsa-queue-probe" : "");
}

int hsaqm_kfd_lv3_decide(const struct hsaqm_kfd_lv3_facts *f, enum hsaqm_kfd_mech_pref pref,
			 struct hsaqm_kfd_lv3 *out)
{
	const struct hsaqm_kfd_mech_verdict *d, *u;

	if (!f || !out || (unsigned int)pref > HSAQM_KFD_PREF_NONE)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	decide_dbg_trap(f, &out->each[HSAQM_KFD_MECH_DBG_TRAP]);
	decide_update_queue(f, &out->each[HSAQM_KFD_MECH_UPDATE_QUEUE]);
	d = &out->each[HSAQM_KFD_MECH_DBG_TRAP];
	u = &out->each[HSAQM_KFD_MECH_UPDATE_QUEUE];
	out->level = 2;
	out->mech = HSAQM_KFD_MECH_NONE;
	if (pref == HSAQM_KFD_PREF_NONE) {
		snprintf(out->reason, sizeof(out->reason), "no Lv3 mechanism: none was asked for");
		return 0;
	}
	if (pref != HSAQM_KFD_PREF_AUTO) {
		/* Asked for one mechanism: that one or none (a user choice is not second-guessed). */
		enum hsaqm_kfd_mech m = pref == HSAQM_KFD_PREF_DBG_TRAP ? HSAQM_KFD_MECH_DBG_TRAP :
									  HSAQM_KFD_MECH_UPDATE_QUEUE;

		if (out->each[m].ok) {
			out->level = 3;
			out->mech = m;
			snprintf(out->reason, sizeof(out->reason), "%s (asked for)", out->each[m].why);
		} else {
			snprintf(out->reason, sizeof(out->reason), "%.200s (%s asked for alone)",
				 out->each[m].why, hsaqm_kfd_mech_pref_name(pref));
		}
		return 0;
	}
	/* Auto with both measured: the one that stops a queue sooner. */
	if (d->ok && u->ok && f->profile_stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE] &&
	    f->profile_stop_ns[HSAQM_KFD_MECH_DBG_TRAP] &&
	    f->profile_stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE] <
		    f->profile_stop_ns[HSAQM_KFD_MECH_DBG_TRAP]) {
		out->level = 3;
		out->mech = HSAQM_KFD_MECH_UPDATE_QUEUE;
		snprintf(out->reason, sizeof(out->reason),
			 "UPDATE_QUEUE: hsa-queue-probe measured its stop at %llu us against "
			 "DBG_TRAP's %llu us",
			 (unsigned long long)(f->profile_stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE] / 1000),
			 (unsigned long long)(f->profile_stop_ns[HSAQM_KFD_MECH_DBG_TRAP] / 1000));
		return 0;
	}
	/* The chain: DBG_TRAP, else UPDATE_QUEUE, saying why DBG_TRAP was passed over. */
	if (d->ok) {
		out->level = 3;
		out->mech = HSAQM_KFD_MECH_DBG_TRAP;
		snprintf(out->reason, sizeof(out->reason), "%s", d->why);
	} else if (u->ok) {
		out->level = 3;
		out->mech = HSAQM_KFD_MECH_UPDATE_QUEUE;
		snprintf(out->reason, sizeof(out->reason), "UPDATE_QUEUE instead of DBG_TRAP: %.200s",
			 d->why);
	} else {
		snprintf(out->reason, sizeof(out->reason), "no Lv3 mechanism: %.110s; %.110s",
			 d->why, u->why);
	}
	return 0;
}

int hsaqm_kfd_queue_deactivate(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			       uint32_t ring_size, uint32_t priority)
{
	if (!kfd)
		return -EINVAL;
	return hsaqm_kfd_queue_update(kfd, queue_id, ring_base, ring_size, 0, priority);
}

int hsaqm_kfd_queue_activate(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			     uint32_t ring_size, uint32_t priority)
{
	if (!kfd)
		return -EINVAL;
	return hsaqm_kfd_queue_update(kfd, queue_id, ring_base, ring_size, 100, priority);
}
