/* SPDX-License-Identifier: MIT */
/*
 * t_kfd_lv3.h - the facts of the Lv3 decision's tests (test-kfd-lv3-*): an MI308X's capability,
 * a set of facts where every prerequisite holds, and the decision on them. Header-only; include
 * once.
 */
#ifndef T_KFD_LV3_H
#define T_KFD_LV3_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "kfd_face_internal.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"
#include "t_sim.h"

/* MI308X capability: trap debug and its firmware (docs/kfd-ioctl.md). */
#define T_CAP_MI308X 0x2c77a280u

static inline void t_good_facts(struct hsaqm_kfd_lv3_facts *f)
{
	hsaqm_kfd_lv3_facts_init(f);
	f->kfd_err = 0;
	f->kfd_major = 1;
	f->kfd_minor = 17;
	f->sched_policy = 0;
	f->cwsr_enable = 1;
	f->node_known = true;
	f->node_id = 1;
	f->capability = T_CAP_MI308X;
}

static inline struct hsaqm_kfd_lv3 t_decide(const struct hsaqm_kfd_lv3_facts *f,
					    enum hsaqm_kfd_mech_pref pref)
{
	struct hsaqm_kfd_lv3 d;

	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(f, pref, &d), 0);
	return d;
}

#endif /* T_KFD_LV3_H */
