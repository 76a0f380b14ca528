/* SPDX-License-Identifier: MIT */
/*
 * kfd-ioctl's default transport (docs/kfd-ioctl.md, "The default transport"): an installed
 * transport, else the registered KFD stand-in's answer, else /dev/kfd; an incomplete transport
 * is refused or passed over; and the state behind it, like the logger's, is libhsaqm.so's one
 * copy (docs/lib.md, "Logging"): what this program sets is what libhsaqm.so holds, for any other
 * copy of kfd-ioctl in the process (the tool library's) to read.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"

/* Transports never opened here: only their identity and completeness matter. */
static int fake_open(void *ctx)
{
	return 3;
}

static int fake_close(void *ctx, int handle)
{
	return 0;
}

static int fake_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	return -ENOTTY;
}

static const struct hsaqm_kfd_transport fake_a = {
	.name = "a", .open = fake_open, .close = fake_close, .ioctl = fake_ioctl,
};
static const struct hsaqm_kfd_transport fake_b = {
	.name = "b", .open = fake_open, .close = fake_close, .ioctl = fake_ioctl,
};
static const struct hsaqm_kfd_transport no_ioctl = {
	.name = "no-ioctl", .open = fake_open, .close = fake_close,
};

static const struct hsaqm_kfd_transport *answer;
static unsigned int asked;

static const struct hsaqm_kfd_transport *provider(void)
{
	asked++;
	return answer;
}

static void reset(void)
{
	hsaqm_kfd_transport_set_default(NULL);
	hsaqm_kfd_transport_set_provider(NULL);
	answer = NULL;
	asked = 0;
}

static void test_system_transport_when_nothing_is_installed_or_registered(void)
{
	reset();
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
}

static void test_the_registered_provider_answers_at_each_request(void)
{
	reset();
	answer = &fake_a;
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_provider(provider), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), &fake_a);
	answer = &fake_b;
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), &fake_b);
	CU_ASSERT_EQUAL(asked, 2);
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_provider(NULL), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	CU_ASSERT_EQUAL(asked, 2);
}

static void test_a_null_or_incomplete_answer_falls_through_to_the_system(void)
{
	reset();
	hsaqm_kfd_transport_set_provider(provider);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	answer = &no_ioctl;
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	CU_ASSERT_EQUAL(asked, 2);
	reset();
}

static void test_an_installed_transport_wins_and_an_incomplete_one_is_refused(void)
{
	reset();
	answer = &fake_a;
	hsaqm_kfd_transport_set_provider(provider);
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_default(&fake_b), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), &fake_b);
	CU_ASSERT_EQUAL(asked, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_default(&no_ioctl), -EINVAL);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), &fake_b);
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_default(NULL), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), &fake_a);
	reset();
}

/* libhsaqm.so by its soname, as the tool library's copy of kfd-ioctl reaches it. */
static void *libhsaqm(void)
{
	void *lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (!lib)
		fprintf(stderr, "\n    libhsaqm.so.0 is not loaded in this program: %s\n", dlerror());
	return lib;
}

static void test_the_transport_state_is_libhsaqm_so_s_one_copy(void)
{
	const struct hsaqm_kfd_transport *(*get_transport)(void) = NULL;
	hsaqm_kfd_transport_provider_fn (*get_provider)(void) = NULL;
	void *lib = libhsaqm();

	CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
	*(void **)&get_transport = dlsym(lib, "hsaqm_kfd_slot_get_transport");
	*(void **)&get_provider = dlsym(lib, "hsaqm_kfd_slot_get_provider");
	CU_ASSERT_PTR_NOT_NULL_FATAL(get_transport);
	CU_ASSERT_PTR_NOT_NULL_FATAL(get_provider);
	reset();
	hsaqm_kfd_transport_set_provider(provider);
	hsaqm_kfd_transport_set_default(&fake_a);
	CU_ASSERT_PTR_EQUAL(get_transport(), &fake_a);
	CU_ASSERT(get_provider() == provider);
	reset();
	CU_ASSERT_PTR_NULL(get_transport());
	CU_ASSERT(get_provider() == NULL);
	dlclose(lib);
}

static void test_the_logger_is_libhsaqm_so_s_one_copy(void)
{
	void (*set_sink)(FILE *) = NULL;
	char buf[256] = "";
	void *lib = libhsaqm();
	FILE *sink = tmpfile();

	CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
	*(void **)&set_sink = dlsym(lib, "hsaqm_log_set_sink");
	CU_ASSERT_PTR_NOT_NULL_FATAL(set_sink);
	/* The sink set in libhsaqm.so is the one this program's log calls write to. */
	set_sink(sink);
	hsaqm_log_write(HSAQM_LOG_ERROR, "probe", "one logger");
	hsaqm_log_set_sink(NULL);
	rewind(sink);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof(buf), sink));
	CU_ASSERT_STRING_EQUAL(buf, "hsaqm[error] probe: one logger\n");
	fclose(sink);
	dlclose(lib);
}

static const struct t_case cases[] = {
	T_CASE(test_system_transport_when_nothing_is_installed_or_registered),
	T_CASE(test_the_registered_provider_answers_at_each_request),
	T_CASE(test_a_null_or_incomplete_answer_falls_through_to_the_system),
	T_CASE(test_an_installed_transport_wins_and_an_incomplete_one_is_refused),
	T_CASE(test_the_transport_state_is_libhsaqm_so_s_one_copy),
	T_CASE(test_the_logger_is_libhsaqm_so_s_one_copy),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-default", NULL, NULL, cases },
		T_SUITES_END,
	};

	return t_run("kfd-default", suites);
}
