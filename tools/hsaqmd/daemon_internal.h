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
#define HSAQMD_MAX_GPU_IDS 64
#define HSAQMD_DEFAULT_MAX_CLIENTS 256
/* Limits every local user is held to (docs/daemon.md "Security model"). Assumptions sized for a
 * node of 8 GPUs: a user's job is a few processes per GPU, each one connection. */
#define HSAQMD_DEFAULT_MAX_CLIENTS_PER_UID 32
#define HSAQMD_DEFAULT_RESERVED_CLIENTS 8  /* kept for root and the daemon's own user */
#define HSAQMD_DEFAULT_HELLO_TIMEOUT_MS 1000
#define HSAQMD_DEFAULT_MAX_QUEUES_PER_UID 1024
#define HSAQMD_DEFAULT_MAX_DEVICES_PER_UID 16
#define HSAQMD_DEFAULT_HOLD_PROGRESS_MS 1000
#define HSAQMD_DEFAULT_TOPOLOGY "/sys/devices/virtual/kfd/kfd/topology"

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
	int socket_line;        /* the configuration's line that set socket_path, 0 none */
	/* Where socket_path came from, for the advice of a refusal: "--socket", "FILE:LINE
	 * (socket =)"; "" the default (hsaqmd's main() fills it in). */
	char socket_from[300];
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
	unsigned int max_clients_per_uid;  /* root and the daemon's uid: no per-uid limit */
	unsigned int reserved_clients;     /* of max_clients, only for root and the daemon's uid */
	unsigned int hello_timeout_ms;     /* a connection without HELLO by then is closed */
	unsigned int max_queues_per_uid;
	unsigned int max_devices_per_uid;  /* distinct gpu_ids a uid's queues may name */
	unsigned int hold_progress_ms;     /* a ready queue without progress this long holds nobody; 0 off */
	/* gpu_ids queues may name: GPU_IDS_AUTO reads the KFD topology (`topology`), any gpu_id
	 * when it lists no GPU; GPU_IDS_ANY never checks; GPU_IDS_LIST the ones listed. */
	enum { HSAQMD_GPU_IDS_AUTO, HSAQMD_GPU_IDS_ANY, HSAQMD_GPU_IDS_LIST } gpu_ids_mode;
	uint32_t gpu_ids[HSAQMD_MAX_GPU_IDS];
	size_t ngpu_ids;
	char topology[256];
	bool busy_poll;         /* spin on the state words while two or more clients are connected */
	unsigned int spin_us;   /* after a change, poll the state words this long before sleeping */
	int realtime_mode;      /* enum hsaqm_rt_mode (hsaqm-common/rt.h) */
	int realtime_prio;
	char metrics_listen[108]; /* "" off; "127.0.0.1:PORT", "[::1]:PORT" or an absolute socket path */
	int deprecated_line;    /* the first line in a form the syntax only tolerates, 0 none */
};

/* hsaqmd_config_default() - the configuration without a file: caps 0 (non-root), HPF. */
void hsaqmd_config_default(struct hsaqmd_config *cfg);

/*
 * hsaqmd_config_parse() - apply @len bytes of a configuration file's text (docs/daemon.md) to
 * @cfg. A NUL byte is an error of its line (it would hide the rest of the file).
 * @err: receives "N: why" for the first error, N its line.
 * Return: 0; -EINVAL for NULL arguments or an invalid line (nothing after it is applied).
 */
int hsaqmd_config_parse(struct hsaqmd_config *cfg, const char *text, size_t len, char *err,
			size_t errlen);

/*
 * hsaqmd_config_load() - read and parse a configuration file.
 * @err: receives "PATH:N: why" for a bad line.
 * Return: 0; -EINVAL (a bad line, see @err); a negative errno from opening or reading it.
 */
int hsaqmd_config_load(struct hsaqmd_config *cfg, const char *path, char *err, size_t errlen);

/* hsaqmd_config_cap() - the highest priority processes of @uid may take. */
int hsaqmd_config_cap(const struct hsaqmd_config *cfg, uint32_t uid);


/*
 * hsaqmd_run() - listen on the configured socket and serve until SIGINT or SIGTERM.
 * @ready_fd: when >= 0, "ready\n" is written to it once the socket listens, then it is closed.
 * Return: 0 after a signal; a negative errno when the socket cannot be set up.
 */
int hsaqmd_run(const struct hsaqmd_config *cfg, int ready_fd);

#endif /* HSAQM_HSAQMD_DAEMON_INTERNAL_H */
