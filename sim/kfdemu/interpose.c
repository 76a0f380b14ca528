// SPDX-License-Identifier: MIT
/*
 * interpose.c - the emulated /dev/kfd's system-call boundary: the libc functions a runtime
 * reaches the kernel through, defined here so that a preload puts them first.
 *
 * Paths. /dev/kfd and /dev/dri/renderD<128 + n> are opened as the model's devices; the KFD's
 * sysfs (/sys/devices/virtual/kfd/kfd, /sys/class/kfd), amdgpu's (/sys/module/amdgpu) and the
 * render nodes' (/sys/dev/char/226:*, /sys/class/drm/renderD*) are the model's generated tree
 * (sim/sysfs.c), and /proc/modules lists amdgpu (kfdemu.c), by rewriting the path before the
 * real call: files there are real files, so
 * read(), readdir() and stat() work unchanged on what is returned. Every other path passes
 * through untouched, without taking a lock or making the model.
 *
 * Descriptors. An opened device is a memfd (a real descriptor: close-on-exec, dup, poll and
 * fork behave), remembered in a table by descriptor; dup/dup2/dup3/fcntl(F_DUPFD*) copy the
 * entry (libdrm keeps a duplicate), close drops it, and the device closes with its last one.
 * ioctl() and mmap() on a device descriptor go to the emulation; fstat() says it is a
 * character device (libdrm checks the major and minor). A table entry is also checked against
 * the descriptor's inode, so a number reused behind the table's back (close_range, a raw
 * syscall) never reaches the emulation.
 *
 * Everything passes through with raw system calls (or the next definition, for the stdio and
 * dirent calls), so no glibc version's symbol versions matter and nothing here recurses.
 */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kfdemu_internal.h"

#define EXPORT __attribute__((visibility("default")))

/* Entry points glibc's headers no longer declare (fortified open, the pre-2.33 stat calls). */
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags);
EXPORT int __xstat(int ver, const char *path, struct stat *st);
EXPORT int __xstat64(int ver, const char *path, struct stat64 *st);
EXPORT int __lxstat(int ver, const char *path, struct stat *st);
EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st);
EXPORT int __fxstat(int ver, int fd, struct stat *st);
EXPORT int __fxstat64(int ver, int fd, struct stat64 *st);
EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

enum kind { DEV_NONE = 0, DEV_KFD, DEV_RENDER };

struct dev_file {
	enum kind kind;
	unsigned int minor;  /* render node */
	int handle;          /* the KFD face's handle */
	unsigned int refs;   /* descriptors naming it */
	dev_t st_dev;
	ino_t st_ino;
};

static struct {
	pthread_mutex_t lock;
	struct dev_file **fd;
	int nfd;
} tab = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- paths ------------------------------------------------------------------------------- */

struct prefix {
	const char *from;
	const char *to;  /* under the generated tree */
	bool open_end;   /* the prefix ends inside a name ("226:" + minor, "renderD" + minor) */
};

static const struct prefix prefixes[] = {
	{ "/sys/devices/virtual/kfd/kfd", "class/kfd/kfd", false },
	{ "/sys/class/kfd", "class/kfd", false },
	{ "/sys/module/amdgpu", "module/amdgpu", false },
	{ "/sys/dev/char/226:", "dev/char/226:", true },
	{ "/sys/class/drm/renderD", "class/drm/renderD", true },
	{ "/sys/class/drm/card", "class/drm/card", true },
	/* The module list with amdgpu in it (kfdemu.c writes it): lsmod reads it. */
	{ "/proc/modules", "proc/modules", false },
};

enum map { MAP_PASS, MAP_PATH, MAP_KFD, MAP_RENDER, MAP_FAIL };

/* True when @path starts with @p's prefix at a name boundary (or anywhere, for an open end). */
static bool has_prefix(const char *path, const struct prefix *p, size_t *len)
{
	size_t n = strlen(p->from);

	if (strncmp(path, p->from, n))
		return false;
	*len = n;
	return p->open_end || !path[n] || path[n] == '/';
}

/*
 * Where @path leads: through (MAP_PASS), into the tree (MAP_PATH, @out filled), a device
 * (MAP_KFD, MAP_RENDER with *@minor), or nowhere because the model cannot be made (MAP_FAIL,
 * errno set).
 */
static enum map map_path(const char *path, char *out, size_t outlen, unsigned int *minor)
{
	size_t n;

	if (!path || path[0] != '/' || (path[1] != 's' && path[1] != 'd' && path[1] != 'p'))
		return MAP_PASS;
	if (!strcmp(path, "/dev/kfd"))
		return kfdemu_sysfs_root() ? MAP_KFD : MAP_FAIL;
	if (!strncmp(path, "/dev/dri/renderD", 16)) {
		char *end;
		unsigned long m = strtoul(path + 16, &end, 10);

		if (*end || end == path + 16 || m > UINT_MAX)
			return MAP_PASS;
		if (!kfdemu_sysfs_root())
			return MAP_FAIL;
		if (kfdemu_render_dev((unsigned int)m) < 0)
			return MAP_PASS; /* not a node of the model: the real one, if any */
		*minor = (unsigned int)m;
		return MAP_RENDER;
	}
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!has_prefix(path, &prefixes[i], &n))
			continue;
		const char *root = kfdemu_sysfs_root();

		if (!root)
			return MAP_FAIL;
		if ((size_t)snprintf(out, outlen, "%s/%s%s", root, prefixes[i].to, path + n) >=
		    outlen) {
			errno = ENAMETOOLONG;
			return MAP_FAIL;
		}
		return MAP_PATH;
	}
	return MAP_PASS;
}

/* ---- the descriptor table ----------------------------------------------------------------- */

static struct dev_file *fd_get_locked(int fd)
{
	struct stat st;

	if (fd < 0 || fd >= tab.nfd || !tab.fd[fd])
		return NULL;
	/* The number may have been reused behind the table's back: the inode must match. */
	if (syscall(SYS_fstat, fd, &st) || st.st_ino != tab.fd[fd]->st_ino ||
	    st.st_dev != tab.fd[fd]->st_dev)
		return NULL;
	return tab.fd[fd];
}

static struct dev_file *fd_get(int fd)
{
	struct dev_file *f;

	if (fd < 0)
		return NULL;
	pthread_mutex_lock(&tab.lock);
	f = fd_get_locked(fd);
	pthread_mutex_unlock(&tab.lock);
	return f;
}

static int fd_put_locked(int fd, struct dev_file *f)
{
	if (fd >= tab.nfd) {
		int n = tab.nfd ? tab.nfd : 64;

		while (n <= fd)
			n *= 2;
		struct dev_file **v = realloc(tab.fd, (size_t)n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + tab.nfd, 0, (size_t)(n - tab.nfd) * sizeof(*v));
		tab.fd = v;
		tab.nfd = n;
	}
	tab.fd[fd] = f;
	f->refs++;
	return 0;
}

/* Drop @fd's entry (lock held); the device closes with its last descriptor. */
static void fd_drop_locked(int fd)
{
	struct dev_file *f;

	if (fd < 0 || fd >= tab.nfd || !(f = tab.fd[fd]))
		return;
	tab.fd[fd] = NULL;
	if (--f->refs)
		return;
	if (f->kind == DEV_KFD)
		kfdemu_kfd_close(f->handle);
	free(f);
}

/* A new device descriptor: a memfd standing for it. Returns the descriptor or -1 (errno). */
static int dev_open(enum kind kind, unsigned int minor, int flags)
{
	struct dev_file *f = calloc(1, sizeof(*f));
	struct stat st;
	int fd, err;

	if (!f) {
		errno = ENOMEM;
		return -1;
	}
	f->kind = kind;
	f->minor = minor;
	f->handle = -1;
	if (kind == DEV_KFD) {
		f->handle = kfdemu_kfd_open();
		if (f->handle < 0) {
			errno = -f->handle;
			free(f);
			return -1;
		}
	}
	fd = (int)syscall(SYS_memfd_create, kind == DEV_KFD ? "hsaqm-kfdemu-kfd" :
				     "hsaqm-kfdemu-render",
			  (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0u);
	if (fd < 0 || syscall(SYS_fstat, fd, &st)) {
		err = errno;
		if (fd >= 0)
			syscall(SYS_close, fd);
		if (f->handle >= 0)
			kfdemu_kfd_close(f->handle);
		free(f);
		errno = err;
		return -1;
	}
	f->st_dev = st.st_dev;
	f->st_ino = st.st_ino;
	pthread_mutex_lock(&tab.lock);
	fd_drop_locked(fd); /* a stale entry under a number the kernel reused */
	err = fd_put_locked(fd, f);
	pthread_mutex_unlock(&tab.lock);
	if (err) {
		syscall(SYS_close, fd);
		if (f->handle >= 0)
			kfdemu_kfd_close(f->handle);
		free(f);
		errno = -err;
		return -1;
	}
	return fd;
}

/* After a successful dup of @old to @newfd: the new number names the same device. */
static void fd_dup(int old, int newfd)
{
	pthread_mutex_lock(&tab.lock);
	struct dev_file *f = fd_get_locked(old);

	if (newfd != old)
		fd_drop_locked(newfd);
	if (f && newfd != old && fd_put_locked(newfd, f))
		syscall(SYS_close, newfd); /* cannot track it: better closed than misrouted */
	pthread_mutex_unlock(&tab.lock);
}

/* A character device's stat for a device descriptor or path. */
static void dev_stat(enum kind kind, unsigned int minor, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = kind == DEV_KFD ? makedev(KFDEMU_KFD_MAJOR, 0) :
					makedev(KFDEMU_DRM_MAJOR, minor);
	st->st_dev = makedev(0, 5); /* devtmpfs (assumption: any fixed value serves) */
	st->st_ino = kind == DEV_KFD ? 1 : 1000 + minor;
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

/* ---- open ------------------------------------------------------------------------------- */

static int open_common(int dirfd, const char *path, int flags, mode_t mode)
{
	char buf[PATH_MAX];
	unsigned int minor = 0;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_KFD:
		return dev_open(DEV_KFD, 0, flags);
	case MAP_RENDER:
		return dev_open(DEV_RENDER, minor, flags);
	case MAP_PATH:
		path = buf;
		break;
	case MAP_FAIL:
		return -1;
	case MAP_PASS:
		break;
	}
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags | O_LARGEFILE, mode);
}

/* The fortified entry points (_FORTIFY_SOURCE callers without O_CREAT). */
EXPORT int __open_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags | O_LARGEFILE, 0);
}

/* stdio and dirent open files through libc's internal calls: they are interposed whole. */
static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static FILE *fopen_common(const char *name, const char *path, const char *mode)
{
	FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *))next(name);
	char buf[PATH_MAX];
	unsigned int minor;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_PATH:
		path = buf;
		break;
	case MAP_KFD:
	case MAP_RENDER:
		errno = EINVAL; /* nobody reads a device node through stdio */
		return NULL;
	case MAP_FAIL:
		return NULL;
	case MAP_PASS:
		break;
	}
	if (!real) {
		errno = ENOSYS;
		return NULL;
	}
	return real(path, mode);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	return fopen_common("fopen", path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return fopen_common("fopen64", path, mode);
}

EXPORT DIR *opendir(const char *path)
{
	DIR *(*real)(const char *) = (DIR * (*)(const char *))next("opendir");
	char buf[PATH_MAX];
	unsigned int minor;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_PATH:
		path = buf;
		break;
	case MAP_KFD:
	case MAP_RENDER:
		errno = ENOTDIR;
		return NULL;
	case MAP_FAIL:
		return NULL;
	case MAP_PASS:
		break;
	}
	if (!real) {
		errno = ENOSYS;
		return NULL;
	}
	return real(path);
}

EXPORT char *realpath(const char *path, char *resolved)
{
	char *(*real)(const char *, char *) = (char *(*)(const char *, char *))next("realpath");
	char buf[PATH_MAX];
	unsigned int minor;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_PATH:
		path = buf;
		break;
	case MAP_FAIL:
		return NULL;
	default:
		break; /* a device node is its own real path */
	}
	if (!real) {
		errno = ENOSYS;
		return NULL;
	}
	return real(path, resolved);
}

/* ---- stat, access, readlink --------------------------------------------------------------- */

static int stat_common(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	unsigned int minor = 0;

	/* fstatat(fd, "", st, AT_EMPTY_PATH) is fstat(fd). */
	if (path && !path[0] && (flags & AT_EMPTY_PATH)) {
		struct dev_file *f = fd_get(dirfd);

		if (f) {
			dev_stat(f->kind, f->minor, st);
			return 0;
		}
	}
	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_KFD:
		dev_stat(DEV_KFD, 0, st);
		return 0;
	case MAP_RENDER:
		dev_stat(DEV_RENDER, minor, st);
		return 0;
	case MAP_PATH:
		path = buf;
		break;
	case MAP_FAIL:
		return -1;
	case MAP_PASS:
		break;
	}
	return (int)syscall(SYS_newfstatat, dirfd, path, st, flags);
}

EXPORT int stat(const char *path, struct stat *st)
{
	return stat_common(AT_FDCWD, path, st, 0);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return stat_common(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	return stat_common(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return stat_common(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return stat_common(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return stat_common(dirfd, path, (struct stat *)st, flags);
}

static int fstat_common(int fd, struct stat *st)
{
	struct dev_file *f = fd_get(fd);

	if (f) {
		dev_stat(f->kind, f->minor, st);
		return 0;
	}
	return (int)syscall(SYS_fstat, fd, st);
}

EXPORT int fstat(int fd, struct stat *st)
{
	return fstat_common(fd, st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat_common(fd, (struct stat *)st);
}

/* The pre-2.33 entry points older binaries call (x86-64: struct stat is the kernel's). */
EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat_common(AT_FDCWD, path, st, 0);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return stat_common(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat_common(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return stat_common(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return fstat_common(fd, st);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	(void)ver;
	return fstat_common(fd, (struct stat *)st);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return stat_common(dirfd, path, st, flags);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	(void)ver;
	return stat_common(dirfd, path, (struct stat *)st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
	char buf[PATH_MAX];
	unsigned int minor = 0;
	enum kind kind = DEV_NONE;

	if (!path[0] && (flags & AT_EMPTY_PATH)) {
		struct dev_file *f = fd_get(dirfd);

		if (f) {
			kind = f->kind;
			minor = f->minor;
		}
	}
	if (kind == DEV_NONE) {
		switch (map_path(path, buf, sizeof(buf), &minor)) {
		case MAP_KFD:
			kind = DEV_KFD;
			break;
		case MAP_RENDER:
			kind = DEV_RENDER;
			break;
		case MAP_PATH:
			path = buf;
			break;
		case MAP_FAIL:
			return -1;
		case MAP_PASS:
			break;
		}
	}
	if (kind != DEV_NONE) {
		struct stat st;

		dev_stat(kind, minor, &st);
		memset(stx, 0, sizeof(*stx));
		stx->stx_mask = STATX_BASIC_STATS;
		stx->stx_mode = (uint16_t)st.st_mode;
		stx->stx_nlink = 1;
		stx->stx_ino = st.st_ino;
		stx->stx_blksize = 4096;
		stx->stx_rdev_major = major(st.st_rdev);
		stx->stx_rdev_minor = minor(st.st_rdev);
		stx->stx_dev_major = major(st.st_dev);
		stx->stx_dev_minor = minor(st.st_dev);
		return 0;
	}
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, stx);
}

static int access_common(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];
	unsigned int minor;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_KFD:
	case MAP_RENDER:
		return 0; /* crw-rw-rw- */
	case MAP_PATH:
		path = buf;
		break;
	case MAP_FAIL:
		return -1;
	case MAP_PASS:
		break;
	}
	if (flags)
		return (int)syscall(SYS_faccessat2, dirfd, path, mode, flags);
	return (int)syscall(SYS_faccessat, dirfd, path, mode);
}

EXPORT int access(const char *path, int mode)
{
	return access_common(AT_FDCWD, path, mode, 0);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	return access_common(dirfd, path, mode, flags);
}

EXPORT int euidaccess(const char *path, int mode)
{
	return access_common(AT_FDCWD, path, mode, AT_EACCESS);
}

static ssize_t readlink_common(int dirfd, const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	unsigned int minor;

	switch (map_path(path, buf, sizeof(buf), &minor)) {
	case MAP_KFD:
	case MAP_RENDER:
		errno = EINVAL; /* not a link */
		return -1;
	case MAP_PATH:
		path = buf;
		break;
	case MAP_FAIL:
		return -1;
	case MAP_PASS:
		break;
	}
	return (ssize_t)syscall(SYS_readlinkat, dirfd, path, out, len);
}

EXPORT ssize_t readlink(const char *path, char *out, size_t len)
{
	return readlink_common(AT_FDCWD, path, out, len);
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *out, size_t len)
{
	return readlink_common(dirfd, path, out, len);
}

/* ---- descriptors ---------------------------------------------------------------------------- */

EXPORT int close(int fd)
{
	pthread_mutex_lock(&tab.lock);
	if (fd >= 0 && fd < tab.nfd && tab.fd[fd])
		fd_drop_locked(fd);
	pthread_mutex_unlock(&tab.lock);
	return (int)syscall(SYS_close, fd);
}

EXPORT int dup(int fd)
{
	int n = (int)syscall(SYS_dup, fd);

	if (n >= 0)
		fd_dup(fd, n);
	return n;
}

EXPORT int dup2(int fd, int fd2)
{
	int n;

	if (fd == fd2) /* dup2 to itself only checks fd (dup3 would fail) */
		return fcntl(fd, F_GETFD) < 0 ? -1 : fd2;
	n = (int)syscall(SYS_dup3, fd, fd2, 0);
	if (n >= 0)
		fd_dup(fd, n);
	return n;
}

EXPORT int dup3(int fd, int fd2, int flags)
{
	int n = (int)syscall(SYS_dup3, fd, fd2, flags);

	if (n >= 0)
		fd_dup(fd, n);
	return n;
}

static int fcntl_common(int fd, int cmd, va_list ap)
{
	/* Every command takes one argument at most: an int, a long or a pointer. */
	unsigned long arg = va_arg(ap, unsigned long);
	int n = (int)syscall(SYS_fcntl, fd, cmd, arg);

	if (n >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		fd_dup(fd, n);
	return n;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	int r;

	va_start(ap, cmd);
	r = fcntl_common(fd, cmd, ap);
	va_end(ap);
	return r;
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	int r;

	va_start(ap, cmd);
	r = fcntl_common(fd, cmd, ap);
	va_end(ap);
	return r;
}

/* ---- ioctl, mmap -------------------------------------------------------------------------- */

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	struct dev_file *f = fd_get(fd);
	va_list ap;
	void *arg;
	int r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!f)
		return (int)syscall(SYS_ioctl, fd, request, arg);
	r = f->kind == DEV_KFD ? kfdemu_kfd_ioctl(f->handle, request, arg) :
				 kfdemu_drm_ioctl(f->minor, request, arg);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	struct dev_file *f = (flags & MAP_ANONYMOUS) ? NULL : fd_get(fd);

	if (!f)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, offset);
	return f->kind == DEV_KFD ? kfdemu_kfd_mmap(f->handle, addr, len, prot, flags, offset) :
				    kfdemu_drm_mmap(f->minor, addr, len, prot, flags, offset);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t offset)
{
	return mmap(addr, len, prot, flags, fd, (off_t)offset);
}
