/* SPDX-License-Identifier: MIT */
/*
 * kfd-ioctl's GPU profile file (hsaqm/kfd_lv3.h): it round-trips, bad files are refused, its
 * numbers follow the one rule of lib/text_internal.h and a refusal names the field.
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

static void test_profile_round_trips_and_bad_files_are_refused(void)
{
	char path[] = "/tmp/hsaqm-profile-XXXXXX";
	struct hsaqm_kfd_profile p, q;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	memset(&p, 0, sizeof(p));
	snprintf(p.source, sizeof(p.source), "hsa-queue-probe test, MODEL figures");
	p.ngpus = 2;
	for (uint32_t g = 0; g < 2; g++) {
		p.gpu[g].gpu_id = 0x1a2b + g;
		for (int m = 0; m < HSAQM_KFD_NMECH; m++)
			p.gpu[g].verdict[m] = HSAQM_KFD_PROFILE_UNKNOWN;
		p.gpu[g].verdict[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_YES;
		p.gpu[g].stop_ns[HSAQM_KFD_MECH_DBG_TRAP] = 131000 + g;
		p.gpu[g].restart_ns[HSAQM_KFD_MECH_DBG_TRAP] = 52000;
		p.gpu[g].verdict[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_NO;
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_save(path, &p), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.source, p.source);
	CU_ASSERT_EQUAL(q.ngpus, 2);
	const struct hsaqm_kfd_profile_gpu *g = hsaqm_kfd_profile_find(&q, 0x1a2c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_DBG_TRAP], HSAQM_KFD_PROFILE_YES);
	CU_ASSERT_EQUAL(g->stop_ns[HSAQM_KFD_MECH_DBG_TRAP], 131001);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_UPDATE_QUEUE], HSAQM_KFD_PROFILE_NO);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_CU_MASK], HSAQM_KFD_PROFILE_UNKNOWN);
	CU_ASSERT_PTR_NULL(hsaqm_kfd_profile_find(&q, 0x9999));

	struct hsaqm_kfd_lv3_facts f;
	t_good_facts(&f);
	hsaqm_kfd_lv3_facts_profile(&f, g);
	CU_ASSERT_EQUAL(t_decide(&f, HSAQM_KFD_PREF_AUTO).mech, HSAQM_KFD_MECH_DBG_TRAP);
	CU_ASSERT_STRING_EQUAL(t_decide(&f, HSAQM_KFD_PREF_AUTO).each[HSAQM_KFD_MECH_UPDATE_QUEUE].code,
			       "profile");

	static const char *const bad[] = {
		"gpu 0x1 dbg_trap supported 1 2\n",                       /* no header */
		"hsaqm-gpu-profile 2\n",                                 /* another version */
		"hsaqm-gpu-profile 1\ngpu 0x1 teleport supported 1 2\n", /* unknown mechanism */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap maybe 1 2\n",     /* unknown verdict */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap supported -1 2\n",
		"hsaqm-gpu-profile 1\ngpu 0 dbg_trap supported 1 2\n",   /* gpu_id 0 is a CPU */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap supported 1\n",   /* a field short */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *w = fopen(path, "w");

		CU_ASSERT_PTR_NOT_NULL_FATAL(w);
		fputs(bad[i], w);
		fclose(w);
		CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), -EBADMSG);
		CU_ASSERT_EQUAL(q.ngpus, 0);
	}
	unlink(path);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), -ENOENT);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(NULL, &q), -EINVAL);
}

/* Load @text as a profile; the message said, if any, in @msg. */
static int profile_load_text(const char *text, struct hsaqm_kfd_profile *q, char *msg, size_t len)
{
	char path[] = "/tmp/hsaqm-profile-XXXXXX";
	char *buf = NULL;
	size_t blen = 0;
	int fd = mkstemp(path), rc;
	FILE *sink;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	sink = open_memstream(&buf, &blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
	hsaqm_log_set_level(HSAQM_LOG_ERROR);
	hsaqm_log_set_sink(sink);
	rc = hsaqm_kfd_profile_load(path, q);
	hsaqm_log_set_sink(NULL);
	hsaqm_log_set_level(HSAQM_LOG_NONE);
	fclose(sink);
	snprintf(msg, len, "%s", buf ? buf : "");
	free(buf);
	unlink(path);
	return rc;
}

/*
 * The profile's numbers follow lib/text_internal.h: a gpu_id is 0x-hex (as the file is written)
 * or decimal (as sysfs has it), never octal by a leading 0; the figures are decimal. Each
 * refusal names the field.
 */
static void test_profile_numbers_follow_the_one_rule_and_refusals_name_the_field(void)
{
	static const char *const bad[] = {
		"010",  /* base 0 read it as 8 */
		"0x",  "+5", "5x", "1e3", "0x1g", "4294967296", "0x100000000",
	};
	static const char *const bad_ns[] = { "+5", "5x", "1e999", "nan", "0x10", "-1" };
	struct hsaqm_kfd_profile q;
	char text[256], msg[512], want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "hsaqm-gpu-profile 1\ngpu %s dbg_trap supported 1 2\n",
			 bad[i]);
		snprintf(want, sizeof(want), "\"%s\"", bad[i]);
		CU_ASSERT_EQUAL(profile_load_text(text, &q, msg, sizeof(msg)), -EBADMSG);
		if (!strstr(msg, want))
			fprintf(stderr, "\nwant %s in: %s\n", want, msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
		CU_ASSERT_EQUAL(q.ngpus, 0);
	}
	for (size_t i = 0; i < sizeof(bad_ns) / sizeof(bad_ns[0]); i++) {
		for (int field = 0; field < 2; field++) {
			snprintf(text, sizeof(text),
				 "hsaqm-gpu-profile 1\ngpu 0x1a2b dbg_trap supported %s %s\n",
				 field ? "1" : bad_ns[i], field ? bad_ns[i] : "2");
			snprintf(want, sizeof(want), "\"%s\"", bad_ns[i]);
			CU_ASSERT_EQUAL(profile_load_text(text, &q, msg, sizeof(msg)), -EBADMSG);
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
		}
	}

	/* As before: 0x-hex and decimal ids, decimal figures (a leading 0 there is still 10). */
	CU_ASSERT_EQUAL(profile_load_text("hsaqm-gpu-profile 1\n"
					  "gpu 0x1A2b dbg_trap supported 131000 010\n"
					  "gpu 6700 update_queue not_supported 0 0\n",
					  &q, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
	CU_ASSERT_EQUAL(q.ngpus, 2);
	const struct hsaqm_kfd_profile_gpu *g = hsaqm_kfd_profile_find(&q, 0x1a2b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->stop_ns[HSAQM_KFD_MECH_DBG_TRAP], 131000);
	CU_ASSERT_EQUAL(g->restart_ns[HSAQM_KFD_MECH_DBG_TRAP], 10);
	g = hsaqm_kfd_profile_find(&q, 6700);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_UPDATE_QUEUE], HSAQM_KFD_PROFILE_NO);
}

static const struct t_case cases[] = {
	T_CASE(test_profile_round_trips_and_bad_files_are_refused),
	T_CASE(test_profile_numbers_follow_the_one_rule_and_refusals_name_the_field),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfd-lv3-profile", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-kfd-lv3-profile", suites);
}
