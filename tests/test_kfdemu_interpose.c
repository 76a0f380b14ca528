// SPDX-License-Identifier: MIT
/*
 * The emulated /dev/kfd's system-call boundary (sim/kfdemu/interpose.c), run as a program
 * preloaded with libhsaqm-kfdemu.so (meson sets LD_PRELOAD): device nodes and their
 * descriptors (fstat, dup, fcntl, close), the rewritten sysfs paths, ioctls reaching the KFD
 * and the DRM emulation, everything else passing through untouched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm.h>

#include "hsaqm-kfd/kfd_uapi.h"
#include "t_cunit.h"

/* The whole file at @path as a string (static buffer), or NULL. */
static const char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int kfd_version(int fd, struct hsaqm_kfd_get_version_args *v)
{
	memset(v, 0, sizeof(*v));
	return ioctl(fd, HSAQM_KFD_IOC_GET_VERSION, v);
}

static void test_dev_kfd_is_a_character_device_that_answers_get_version(void)
{
	struct hsaqm_kfd_get_version_args v;
	struct stat st;
	int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	CU_ASSERT_EQUAL(stat("/dev/kfd", &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	CU_ASSERT_EQUAL(access("/dev/kfd", R_OK | W_OK), 0);
	CU_ASSERT_EQUAL(kfd_version(fd, &v), 0);
	CU_ASSERT_EQUAL(v.major_version, 1);
	CU_ASSERT(v.minor_version >= 13);
	/* Close-on-exec as asked: a real descriptor carries it. */
	CU_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CU_ASSERT_EQUAL(close(fd), 0);
	/* After close the number is nobody's: EBADF, as the kernel says. */
	CU_ASSERT_EQUAL(kfd_version(fd, &v), -1);
	CU_ASSERT_EQUAL(errno, EBADF);
}

/* libdrm keeps a duplicate of the render node: the copy works after the original closes. */
static void test_duplicates_name_the_same_device_until_the_last_closes(void)
{
	struct hsaqm_kfd_get_version_args v;
	int fd = open("/dev/kfd", O_RDWR);
	int d1, d2, d3;

	CU_ASSERT_FATAL(fd >= 0);
	d1 = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	CU_ASSERT(d1 >= 0);
	CU_ASSERT(d2 >= 100);
	d3 = dup2(fd, 200);
	CU_ASSERT_EQUAL(d3, 200);
	CU_ASSERT_EQUAL(close(fd), 0);
	CU_ASSERT_EQUAL(kfd_version(d1, &v), 0);
	CU_ASSERT_EQUAL(close(d1), 0);
	CU_ASSERT_EQUAL(kfd_version(d2, &v), 0);
	CU_ASSERT_EQUAL(close(d2), 0);
	CU_ASSERT_EQUAL(kfd_version(d3, &v), 0);
	CU_ASSERT_EQUAL(close(d3), 0);
}

static void test_render_node_is_drm_226_128_and_says_amdgpu_3(void)
{
	char name[16] = { 0 };
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
	struct stat st;
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	CU_ASSERT_EQUAL(major(st.st_rdev), 226);
	CU_ASSERT_EQUAL(minor(st.st_rdev), 128);
	CU_ASSERT_EQUAL(ioctl(fd, DRM_IOCTL_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v.version_major, 3);
	CU_ASSERT_STRING_EQUAL(name, "amdgpu");
	/* libdrm's drmNodeIsDRM(): the node's sysfs has a drm folder. */
	CU_ASSERT_EQUAL(stat("/sys/dev/char/226:128/device/drm", &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(close(fd), 0);
}

static void test_sysfs_is_the_models_runtime_topology(void)
{
	const char *s;
	DIR *d;
	struct dirent *de;
	int nodes = 0;

	s = slurp("/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "gfx_target_version 90402\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "mem_banks_count 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "drm_render_minor 128\n"));
	/* The counts the properties give have their folders. */
	CU_ASSERT_PTR_NOT_NULL(slurp("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties"));
	CU_ASSERT_PTR_NOT_NULL(slurp("/sys/class/kfd/kfd/topology/nodes/1/io_links/0/properties"));
	CU_ASSERT_PTR_NOT_NULL(slurp("/sys/class/kfd/kfd/topology/hsaqm_model"));
	d = opendir("/sys/class/kfd/kfd/topology/nodes");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((de = readdir(d)))
		nodes += de->d_name[0] != '.';
	closedir(d);
	CU_ASSERT_EQUAL(nodes, 2); /* the CPU and one GPU */
	s = slurp("/sys/module/amdgpu/initstate");
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_STRING_EQUAL(s ? s : "", "live\n");
	s = slurp("/proc/modules");
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(s ? s : "", "amdgpu "));
}

/* Everything else is the kernel's: other paths, other descriptors, other ioctls. */
static void test_other_paths_and_descriptors_pass_through(void)
{
	int p[2], n = -1;
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL(write(p[1], "abc", 3), 3);
	CU_ASSERT_EQUAL(ioctl(p[0], FIONREAD, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(fstat(p[0], &st), 0);
	CU_ASSERT(S_ISFIFO(st.st_mode));
	close(p[0]);
	close(p[1]);
	/* A render node the model does not have is not there. */
	CU_ASSERT_EQUAL(open("/dev/dri/renderD200", O_RDWR), -1);
	CU_ASSERT_EQUAL(stat("/etc/hostname", &st) == 0, access("/etc/hostname", F_OK) == 0);
	CU_ASSERT_EQUAL(open("/sys/class/kfd/kfd/topology/nodes/9/properties", O_RDONLY), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
}

int main(void)
{
	static const struct t_case cases[] = {
		T_CASE(test_dev_kfd_is_a_character_device_that_answers_get_version),
		T_CASE(test_duplicates_name_the_same_device_until_the_last_closes),
		T_CASE(test_render_node_is_drm_226_128_and_says_amdgpu_3),
		T_CASE(test_sysfs_is_the_models_runtime_topology),
		T_CASE(test_other_paths_and_descriptors_pass_through),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "kfdemu-interpose", NULL, NULL, cases },
		T_SUITES_END,
	};
	const char *pre = getenv("LD_PRELOAD");

	if (!pre || !strstr(pre, "libhsaqm-kfdemu"))
		return t_skip("test-kfdemu-interpose", "run with LD_PRELOAD=libhsaqm-kfdemu.so");
	return t_run("test-kfdemu-interpose", suites);
}
