/* SPDX-License-Identifier: MIT */
/*
 * A fuzz target for what hsaqmd reads from strangers: the message parser (proto.c) and the
 * configuration parser (config.c). Each input is tried as a datagram and, NUL-terminated,
 * as a configuration file.
 *
 * Beyond "no crash, no sanitizer report", it checks what the daemon relies on:
 *   - an accepted message is exactly as long as its type says, and every range the daemon
 *     uses without checking again holds (slots, priorities, levels, shares, strings);
 *   - building an accepted message again gives the same bytes, and parsing those gives the
 *     same message (the parser and the builder agree);
 *   - a prefix of an accepted message (a truncated one) is refused, and so is one byte more;
 *   - an accepted configuration's caps and policies are in range.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_internal.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-dclient/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FM_CHECK(cond)                                                                      \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "fuzz-msg: %s:%d: %s does not hold\n", __FILE__,   \
				__LINE__, #cond);                                           \
			abort();                                                            \
		}                                                                           \
	} while (0)

static void check_ranges(const struct hsaqmd_msg *m)
{
	switch (m->hdr.type) {
	case HSAQMD_HELLO:
		FM_CHECK(m->u.hello.priority >= HSAQM_PRIORITY_MIN &&
			 m->u.hello.priority <= HSAQM_PRIORITY_MAX);
		FM_CHECK(memchr(m->u.hello.comm, 0, sizeof(m->u.hello.comm)));
		break;
	case HSAQMD_QUEUE_ADD:
		FM_CHECK(m->u.queue_add.slot < HSAQMD_SLOTS);
		FM_CHECK(m->u.queue_add.level <= HSAQM_LEVEL_3);
		FM_CHECK(m->u.queue_add.share <= HSAQM_SHARE_MAX);
		break;
	case HSAQMD_QUEUE_DEL:
		FM_CHECK(m->u.queue_del.slot < HSAQMD_SLOTS);
		break;
	case HSAQMD_QUEUE_SET:
		FM_CHECK(m->u.queue_set.slot < HSAQMD_SLOTS);
		FM_CHECK(m->u.queue_set.what && !(m->u.queue_set.what & ~HSAQMD_SET_ALL));
		break;
	case HSAQMD_PROC_SET:
		FM_CHECK(m->u.proc_set.priority >= HSAQM_PRIORITY_MIN &&
			 m->u.proc_set.priority <= HSAQM_PRIORITY_MAX);
		break;
	case HSAQMD_POLICY_SET: {
		struct hsaqm_policy_config p = {
			.kind = (enum hsaqm_policy_kind)m->u.policy.kind,
			.floor_period_us = m->u.policy.floor_period_us,
			.floor_slice_us = m->u.policy.floor_slice_us,
			.util_period_us = m->u.policy.util_period_us,
		};

		/* What the daemon hands to lib's policy code must pass lib's own check. */
		FM_CHECK(hsaqm_policy_check(&p) == 0);
		break;
	}
	default:
		break;
	}
}

static void fuzz_message(const uint8_t *data, size_t size)
{
	struct hsaqmd_msg m, again;
	uint8_t buf[HSAQMD_MSG_MAX + 1];
	int rc = hsaqmd_msg_parse(data, size, &m), len;

	FM_CHECK(rc == 0 || rc == -EBADMSG || rc == -EPROTONOSUPPORT);
	if (rc)
		return;
	FM_CHECK(size == sizeof(m.hdr) + (size_t)hsaqmd_msg_body_size(m.hdr.type));
	check_ranges(&m);
	len = hsaqmd_msg_build(buf, m.hdr.type, m.hdr.seq, &m.u);
	FM_CHECK(len == (int)size && !memcmp(buf, data, size));
	FM_CHECK(hsaqmd_msg_parse(buf, (size_t)len, &again) == 0);
	FM_CHECK(!memcmp(&again, &m, sizeof(m)));
	/* Truncated, and one byte too long: never accepted. */
	for (size_t cut = 0; cut < size; cut += 1 + cut / 4)
		FM_CHECK(hsaqmd_msg_parse(buf, cut, &again) != 0);
	buf[len] = 0;
	FM_CHECK(hsaqmd_msg_parse(buf, (size_t)len + 1, &again) != 0);
}

static void fuzz_config(const uint8_t *data, size_t size)
{
	struct hsaqmd_config cfg;
	char err[128];
	char *text = malloc(size + 1);

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	hsaqmd_config_default(&cfg);
	if (hsaqmd_config_parse(&cfg, text, size, err, sizeof(err)) == 0) {
		FM_CHECK(cfg.default_cap >= HSAQM_PRIORITY_MIN && cfg.default_cap <= HSAQM_PRIORITY_MAX);
		FM_CHECK(cfg.ncaps <= HSAQMD_MAX_CAPS && cfg.npolicies <= HSAQMD_MAX_POLICIES);
		for (size_t i = 0; i < cfg.ncaps; i++)
			FM_CHECK(cfg.caps[i].cap >= HSAQM_PRIORITY_MIN &&
				 cfg.caps[i].cap <= HSAQM_PRIORITY_MAX);
		FM_CHECK(hsaqm_policy_check(&cfg.policy) == 0);
		for (size_t i = 0; i < cfg.npolicies; i++)
			FM_CHECK(hsaqm_policy_check(&cfg.policies[i].cfg) == 0);
		FM_CHECK(cfg.socket_mode <= 0777 && cfg.max_clients >= 1);
		FM_CHECK(cfg.reserved_clients < cfg.max_clients);
		/* A NUL anywhere is refused: nothing after it may pass unread. */
		FM_CHECK(!memchr(data, '\0', size));
	} else {
		/* "N: why", N the line. */
		FM_CHECK(err[0] >= '1' && err[0] <= '9' && strstr(err, ": "));
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_message(data, size);
	/* Configuration files are short; the fuzzer's long inputs are messages' business. */
	if (size <= 4096)
		fuzz_config(data, size);
	return 0;
}
