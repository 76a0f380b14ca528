/* SPDX-License-Identifier: MIT */
/*
 * daemon_internal.h - hsaqmd's configuration and its entry point (docs/daemon.md).
 */
#ifndef HSAQM_HSAQMD_DAEMON_INTERNAL_H
#define HSAQM_HSAQMD_DAEMON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hsaqm/hsaqm.h"

#define HSAQMD_MAX_CAPS 64
#define HSAQMD_MAX_POLICIES 64
#define HSAQMD_DEFAULT_MAX_CLIENTS 256

struct hsaqmd_cap {
	uint32_t uid;
	int cap;
};

struct hsaqmd_dev_policy {
	uint32_t gpu_id;
	struct hsaqm_policy_config cfg;
};

struct hsaqmd_config {
	char socket_path[108];  /* sun_path's size; "" = the default for the user */
	unsigned int socket_mode;
	long socket_gid;        /* -1: the daemon's group */
	int default_cap;        /* the cap of every non-root uid without its own line */
	int root_cap;
	struct hsaqmd_cap caps[HSAQMD_MAX_CAPS];
	size_t ncaps;
	struct hsaqm_policy_config policy;  /* devices without their own line */
	struct hsaqmd_dev_policy policies[HSAQMD_MAX_POLICIES];
	size_t npolicies;
	unsigned int max_clients;
	bool busy_poll;         /* spin on the state words while two or more clients are connected */
};

/* hsaqmd_config_default() - the configuration without a file: caps 0 (non-root), HPF. */
void hsaqmd_config_default(struct hsaqmd_config *cfg);

/*
 * hsaqmd_config_parse() - apply the text of a configuration file (docs/daemon.md) to @cfg.
 * @err: receives "line N: why" for the first error.
 * Return: 0; -EINVAL for NULL arguments or an invalid line (nothing after it is applied).
 */
int hsaqmd_config_parse(struct hsaqmd_config *cfg, const char *text, char *err, size_t errlen);

/*
 * hsaqmd_config_load() - read and parse a configuration file.
 * Return: 0; -EINVAL (a bad line, see @err); a negative errno from opening or reading it.
 */
int hsaqmd_config_load(struct hsaqmd_config *cfg, const char *path, char *err, size_t errlen);

/* hsaqmd_config_cap() - the highest priority processes of @uid may take. */
int hsaqmd_config_cap(const struct hsaqmd_config *cfg, uint32_t uid);

/*
 * hsaqmd_default_socket() - /run/hsaqm/hsaqmd.sock as root, else
 * $XDG_RUNTIME_DIR/hsaqm/hsaqmd.sock (/tmp/hsaqm-UID/hsaqmd.sock without XDG_RUNTIME_DIR).
 * Return: 0; -ENAMETOOLONG.
 */
int hsaqmd_default_socket(char *buf, size_t size);

/*
 * hsaqmd_run() - listen on the configured socket and serve until SIGINT or SIGTERM.
 * @ready_fd: when >= 0, "ready\n" is written to it once the socket listens, then it is closed.
 * Return: 0 after a signal; a negative errno when the socket cannot be set up.
 */
int hsaqmd_run(const struct hsaqmd_config *cfg, int ready_fd);

#endif /* HSAQM_HSAQMD_DAEMON_INTERNAL_H */
