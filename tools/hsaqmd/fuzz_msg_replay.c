/* SPDX-License-Identifier: MIT */
/*
 * fuzz-msg-replay: runs the message fuzz target (fuzz_msg.c) on files without libFuzzer, so
 * every build (normal, sanitizers) replays the committed corpus as a test; it also writes
 * that corpus's seeds.
 *
 *   fuzz-msg-replay PATH...             replay files, and every file of each directory
 *   fuzz-msg-replay --write-seeds DIR   write the seeds below into DIR
 *
 * Exit: 0 when every input ran (a violated check aborts); 1 when no input was found or a file
 * could not be read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hsaqm-dclient/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 1;
}

static int run_path(const char *path)
{
	struct stat st;
	int count = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		int r = run_file(p);

		if (r < 0) {
			closedir(d);
			return -1;
		}
		count += r;
	}
	closedir(d);
	return count;
}

static int write_seed(const char *dir, const char *name, const void *data, size_t n)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f || fwrite(data, 1, n, f) != n) {
		perror(p);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static int write_msg(const char *dir, const char *name, unsigned int type, const void *body)
{
	uint8_t buf[HSAQMD_MSG_MAX];
	int len = hsaqmd_msg_build(buf, type, 7, body);

	return len < 0 ? -1 : write_seed(dir, name, buf, (size_t)len);
}

static int write_seeds(const char *dir)
{
	struct hsaqmd_hello hello = { .role = HSAQMD_ROLE_CLIENT, .priority = 5, .pid = 42,
				      .comm = "python3" };
	struct hsaqmd_queue_add add = { .gpu_id = 0x1234, .kfd_queue_id = 3, .hsa_queue_id = 9,
					.level = 2, .prio_adj = -1, .share = 500, .slot = 4,
					.mech = "dbg_trap" };
	struct hsaqmd_queue_set set = { .slot = 4, .what = HSAQMD_SET_ALL, .kfd_queue_id = 5,
					.level = 3, .prio_adj = 2, .group = 1, .share = 250,
					.mech = "cu_mask" };
	struct hsaqmd_text text = { .len = 11, .text = "hsaqm_up 1\n" };
	struct hsaqmd_queue_del del = { .slot = 4 };
	struct hsaqmd_proc_set ps = { .priority = -20 };
	struct hsaqmd_ctl_set_prio cp = { .target_kind = HSAQMD_TARGET_QUEUE, .target = 3,
					  .priority = 150 };
	struct hsaqmd_policy_entry pol = { .gpu_id = HSAQMD_ALL_GPUS, .kind = 0,
					   .floor_period_us = 10000, .floor_slice_us = 1000 };
	static const char conf[] = "# hsaqmd.conf\nsocket = /run/hsaqm/hsaqmd.sock\n"
				   "socket_mode = 0660\ncap.default = 0\ncap.0 = 100\ncap.1000 = 20\n"
				   "policy.default = hpf 10000 1000\npolicy.0x1234 = util 5000\n"
				   "max_clients = 64\nmax_clients_per_uid = 8\nreserved_clients = 4\n"
				   "hello_timeout_ms = 500\nhold_progress_ms = 2000\ngpu_ids = 0x1234, 7\n"
				   "max_devices_per_uid = 2\nrealtime = 30\nspin_us = 300\n";
	uint8_t bad[HSAQMD_MSG_MAX];
	int rc = 0, len;

	mkdir(dir, 0755);
	rc |= write_msg(dir, "seed-hello", HSAQMD_HELLO, &hello);
	rc |= write_msg(dir, "seed-queue-add", HSAQMD_QUEUE_ADD, &add);
	rc |= write_msg(dir, "seed-queue-set", HSAQMD_QUEUE_SET, &set);
	rc |= write_msg(dir, "seed-queue-del", HSAQMD_QUEUE_DEL, &del);
	rc |= write_msg(dir, "seed-proc-set", HSAQMD_PROC_SET, &ps);
	rc |= write_msg(dir, "seed-ctl-set-prio", HSAQMD_CTL_SET_PRIO, &cp);
	rc |= write_msg(dir, "seed-policy-set", HSAQMD_POLICY_SET, &pol);
	rc |= write_msg(dir, "seed-list", HSAQMD_LIST, NULL);
	rc |= write_msg(dir, "seed-stats", HSAQMD_STATS, NULL);
	rc |= write_msg(dir, "seed-metrics", HSAQMD_METRICS, NULL);
	rc |= write_msg(dir, "seed-text", HSAQMD_TEXT, &text);
	/* Malformed ones: truncated, a length that lies, an unknown type, another version. */
	len = hsaqmd_msg_build(bad, HSAQMD_QUEUE_ADD, 1, &add);
	rc |= write_seed(dir, "seed-truncated", bad, (size_t)len - 5);
	((struct hsaqmd_hdr *)bad)->len = 1000;
	rc |= write_seed(dir, "seed-lying-length", bad, (size_t)len);
	((struct hsaqmd_hdr *)bad)->len = (uint32_t)len;
	((struct hsaqmd_hdr *)bad)->type = 99;
	rc |= write_seed(dir, "seed-unknown-type", bad, (size_t)len);
	((struct hsaqmd_hdr *)bad)->type = HSAQMD_QUEUE_ADD;
	((struct hsaqmd_hdr *)bad)->version = HSAQMD_PROTO_VERSION + 1;
	rc |= write_seed(dir, "seed-other-version", bad, (size_t)len);
	rc |= write_seed(dir, "seed-config", conf, sizeof(conf) - 1);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	int total = 0;

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	for (int i = 1; i < argc; i++) {
		int n = run_path(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	printf("fuzz-msg-replay: %d inputs ran\n", total);
	return total ? 0 : 1;
}
