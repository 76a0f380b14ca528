/* SPDX-License-Identifier: MIT */
/*
 * rocminfo's pre-flight, on a machine without the amdgpu driver (docs/real-stack.md).
 *
 * Before it calls hsa_init(), Debian's rocminfo 5.2.3 checks two things ROCr itself never
 * needs: that `lsmod | grep amdgpu` prints something, and that /dev/kfd opens read-write.
 * Preloaded into rocminfo only (LD_PRELOAD), this library answers exactly those two probes —
 * the popen of that one command line gets a line naming the model, the open of "/dev/kfd"
 * gets /dev/null — and passes every other call through unchanged. ROCr reaches the model
 * through libhsakmt.so.1 (LD_LIBRARY_PATH), not through this file.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define SHIM_API __attribute__((visibility("default")))

SHIM_API FILE *popen(const char *cmd, const char *mode);
/* Explicit symbol names: with _FILE_OFFSET_BITS=64, <fcntl.h> renames open() to open64(). */
SHIM_API int shim_open(const char *path, int flags, ...) __asm__("open");
SHIM_API int shim_open64(const char *path, int flags, ...) __asm__("open64");

FILE *popen(const char *cmd, const char *mode)
{
	FILE *(*real)(const char *, const char *) =
		(FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "popen");

	if (!real)
		return NULL;
	if (!strcmp(cmd, "lsmod | grep amdgpu"))
		return real("echo 'amdgpu (hsaqm device model via libhsakmt face)'", mode);
	return real(cmd, mode);
}

static int open_common(const char *name, const char *path, int flags, mode_t m)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
										     name);

	if (!real)
		return -1;
	if (!strcmp(path, "/dev/kfd"))
		return real("/dev/null", (flags & O_ACCMODE) | O_CLOEXEC);
	return real(path, flags, m);
}

int shim_open(const char *path, int flags, ...)
{
	mode_t m = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		m = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return open_common("open", path, flags, m);
}

int shim_open64(const char *path, int flags, ...)
{
	mode_t m = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		m = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return open_common("open64", path, flags, m);
}
