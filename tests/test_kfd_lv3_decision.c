/* SPDX-License-Identifier: MIT */
/*
 * kfd-ioctl's Lv3 decision (hsaqm/kfd_lv3.h): every prerequisite of each mechanism with its
 * reason code and remedy, and the choice between DBG_TRAP and UPDATE_QUEUE (preference, a
 * refusal learned at run time, the probe's profile); the names and preferences parse both ways.
 */
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
#include "t_kfd_lv3.h"

static void test_dbg_trap_is_chosen_when_every_prerequisite_holds(void)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	t_good_facts(&f);
	d = t_decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.level, 3);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_DBG_TRAP);
	CU_ASSERT(d.each[HSAQM_KFD_MECH_DBG_TRAP].ok && d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "DBG_TRAP"));
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(NULL, HSAQM_KFD_PREF_AUTO, &d), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(&f, (enum hsaqm_kfd_mech_pref)9, &d), -EINVAL);
}

/* One broken prerequisite: DBG_TRAP's code, and whether UPDATE_QUEUE takes over. */
static void expect(void (*breakit)(struct hsaqm_kfd_lv3_facts *), const char *code,
		   bool remedy, bool update_ok)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	t_good_facts(&f);
	breakit(&f);
	d = t_decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_FALSE(d.each[HSAQM_KFD_MECH_DBG_TRAP].ok);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, code);
	CU_ASSERT_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].remedy[0] != '\0', remedy);
	CU_ASSERT_EQUAL(d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].ok, update_ok);
	CU_ASSERT_EQUAL(d.mech, update_ok ? HSAQM_KFD_MECH_UPDATE_QUEUE : HSAQM_KFD_MECH_NONE);
	CU_ASSERT_EQUAL(d.level, update_ok ? 3 : 2);
	if (update_ok)
		CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "UPDATE_QUEUE instead of DBG_TRAP"));
	/* The reason carries DBG_TRAP's own sentence either way. */
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, d.each[HSAQM_KFD_MECH_DBG_TRAP].why));
}

static void old_kfd(struct hsaqm_kfd_lv3_facts *f) { f->kfd_minor = 11; }
static void no_hws(struct hsaqm_kfd_lv3_facts *f) { f->sched_policy = 2; }
static void no_cwsr(struct hsaqm_kfd_lv3_facts *f) { f->cwsr_enable = 0; }
static void no_trap(struct hsaqm_kfd_lv3_facts *f) { f->capability &= ~HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT; }
static void no_fw(struct hsaqm_kfd_lv3_facts *f)
{
	f->capability &= ~HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
}
static void no_kfd(struct hsaqm_kfd_lv3_facts *f) { f->kfd_err = -EACCES; }
static void debugger(struct hsaqm_kfd_lv3_facts *f) { f->dbg_err = -EALREADY; }
static void eperm(struct hsaqm_kfd_lv3_facts *f) { f->dbg_err = -EPERM; }

static void test_each_missing_prerequisite_has_its_code_and_the_fallback(void)
{
	/* UPDATE_QUEUE needs neither 1.13, HWS nor the trap handler: it takes over. */
	expect(old_kfd, "kfd_too_old", true, true);
	expect(no_hws, "no_hws", true, true);
	expect(no_trap, "no_trap_debug", false, true);
	expect(no_fw, "trap_debug_firmware", true, true);
	expect(debugger, "debugger_attached", true, true);
	expect(eperm, "eperm", true, true);
	/* Without CWSR or without the KFD neither can suspend mid-kernel. */
	expect(no_cwsr, "cwsr_off", true, false);
	expect(no_kfd, "no_kfd", true, false);
}

static void test_preference_refusals_and_the_profile_choose_the_mechanism(void)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	t_good_facts(&f);
	d = t_decide(&f, HSAQM_KFD_PREF_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "asked for"));
	d = t_decide(&f, HSAQM_KFD_PREF_NONE);
	CU_ASSERT_EQUAL(d.level, 2);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_NONE);
	/* UPDATE_QUEUE refused at run time: asked for alone, nothing else is taken. */
	f.update_err = -EINVAL;
	d = t_decide(&f, HSAQM_KFD_PREF_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_NONE);
	CU_ASSERT_EQUAL(d.level, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "update_queue asked for alone"));
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].code, "kfd_refused");
	/* Auto: DBG_TRAP, which was available all along. */
	CU_ASSERT_EQUAL(t_decide(&f, HSAQM_KFD_PREF_AUTO).mech, HSAQM_KFD_MECH_DBG_TRAP);
	/* A profile that measured both: auto takes the faster stop. */
	t_good_facts(&f);
	f.profile[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_YES;
	f.profile[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_YES;
	f.profile_stop_ns[HSAQM_KFD_MECH_DBG_TRAP] = 131000;
	f.profile_stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE] = 81000;
	d = t_decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "81 us"));
	/* ... but a preference stands. */
	d = t_decide(&f, HSAQM_KFD_PREF_DBG_TRAP);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_DBG_TRAP);
	/* A profile that found DBG_TRAP not working rules it out. */
	f.profile[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_UNKNOWN;
	f.profile[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_NO;
	d = t_decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, "profile");
}

static void test_names_and_preferences_parse_both_ways(void)
{
	enum hsaqm_kfd_mech_pref p;

	for (int i = 0; i <= HSAQM_KFD_PREF_NONE; i++) {
		CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse(hsaqm_kfd_mech_pref_name(i), &p), 0);
		CU_ASSERT_EQUAL(p, i);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse("dbgtrap", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse(NULL, &p), -EINVAL);
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name(HSAQM_KFD_MECH_UPDATE_QUEUE), "update_queue");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name(HSAQM_KFD_MECH_CU_MASK), "cu_mask");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name((enum hsaqm_kfd_mech)7), "?");
}

static const struct t_case cases[] = {
	T_CASE(test_dbg_trap_is_chosen_when_every_prerequisite_holds),
	T_CASE(test_each_missing_prerequisite_has_its_code_and_the_fallback),
	T_CASE(test_preference_refusals_and_the_profile_choose_the_mechanism),
	T_CASE(test_names_and_preferences_parse_both_ways),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfd-lv3-decision", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-kfd-lv3-decision", suites);
}
