/* SPDX-License-Identifier: MIT */
/*
 * A fake profiler for the chaining tests: an HSA_TOOLS_LIB tool that wraps hsa_queue_create,
 * hsa_queue_destroy, two index functions and hsa_signal_store_screlease the way a tracing tool
 * does (save the table's entry, call it from the wrapper), and records what it saw. The test
 * reads the record with fake_tool_get() (dlsym). It knows only the model's layout (root 3).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-common/barrier.h"
#include "fake_tool.h"

#define EXPORT __attribute__((visibility("default")))

static struct hsaqm_core_api_table *core;
static hsaqm_hsa_queue_create_fn next_create;
static hsaqm_hsa_queue_destroy_fn next_destroy;
static hsaqm_hsa_queue_add_index_fn next_add;
static hsaqm_hsa_queue_load_index_fn next_load_read;
static hsaqm_hsa_signal_store_fn next_store;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_tool_record rec;

static bool known_queue(const struct hsaqm_hsa_queue *q)
{
	for (uint32_t i = 0; i < rec.ncreated && i < FAKE_TOOL_MAX_QUEUES; i++)
		if (rec.created[i] == q)
			return true;
	return false;
}

static hsaqm_hsa_status_t f_create(struct hsaqm_hsa_agent agent, uint32_t size,
				   hsaqm_hsa_queue_type32_t type, hsaqm_hsa_queue_callback_fn cb,
				   void *data, uint32_t priv, uint32_t group,
				   struct hsaqm_hsa_queue **q)
{
	hsaqm_hsa_status_t st = next_create(agent, size, type, cb, data, priv, group, q);

	pthread_mutex_lock(&lock);
	if (st == HSAQM_HSA_STATUS_SUCCESS && rec.ncreated < FAKE_TOOL_MAX_QUEUES) {
		rec.created[rec.ncreated] = *q;
		rec.created_doorbell[rec.ncreated] = (*q)->doorbell_signal.handle;
		rec.ncreated++;
	}
	pthread_mutex_unlock(&lock);
	return st;
}

static hsaqm_hsa_status_t f_destroy(struct hsaqm_hsa_queue *q)
{
	pthread_mutex_lock(&lock);
	rec.destroys++;
	rec.destroy_known += known_queue(q);
	pthread_mutex_unlock(&lock);
	return next_destroy(q);
}

static uint64_t f_add(const struct hsaqm_hsa_queue *q, uint64_t v)
{
	pthread_mutex_lock(&lock);
	rec.index_calls++;
	rec.index_known += known_queue(q);
	pthread_mutex_unlock(&lock);
	return next_add(q, v);
}

static uint64_t f_load_read(const struct hsaqm_hsa_queue *q)
{
	pthread_mutex_lock(&lock);
	rec.index_calls++;
	rec.index_known += known_queue(q);
	pthread_mutex_unlock(&lock);
	return next_load_read(q);
}

static void f_store(struct hsaqm_hsa_signal s, hsaqm_hsa_signal_value_t v)
{
	pthread_mutex_lock(&lock);
	rec.stores++;
	for (uint32_t i = 0; i < rec.ncreated && i < FAKE_TOOL_MAX_QUEUES; i++)
		if (rec.created_doorbell[i] == s.handle)
			rec.doorbell_stores++;
	pthread_mutex_unlock(&lock);
	next_store(s, v);
}

EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_count,
		   const char *const *failed_names);
EXPORT void OnUnload(void);
EXPORT void fake_tool_get(struct fake_tool_record *out);

EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_count,
		   const char *const *failed_names)
{
	struct hsaqm_api_root_v3 *root = table;

	memset(&rec, 0, sizeof(rec));
	rec.loads = 1;
	rec.runtime_version = runtime_version;
	rec.failed_count = failed_count;
	if (failed_count && failed_names && failed_names[0]) {
		strncpy(rec.first_failed, failed_names[0], sizeof(rec.first_failed) - 1);
	}
	if (root->version.major_id != 3)
		return false;
	core = root->core;
	/* Whatever is in the table now: the runtime's, or a tool's loaded before this one. */
	next_create = core->hsa_queue_create_fn;
	next_destroy = core->hsa_queue_destroy_fn;
	next_add = core->hsa_queue_add_write_index_screlease_fn;
	next_load_read = core->hsa_queue_load_read_index_scacquire_fn;
	next_store = core->hsa_signal_store_screlease_fn;
	core->hsa_queue_create_fn = f_create;
	core->hsa_queue_destroy_fn = f_destroy;
	core->hsa_queue_add_write_index_screlease_fn = f_add;
	core->hsa_queue_load_read_index_scacquire_fn = f_load_read;
	core->hsa_signal_store_screlease_fn = f_store;
	return true;
}

EXPORT void OnUnload(void)
{
	pthread_mutex_lock(&lock);
	rec.unloads++;
	pthread_mutex_unlock(&lock);
}

EXPORT void fake_tool_get(struct fake_tool_record *out)
{
	pthread_mutex_lock(&lock);
	*out = rec;
	pthread_mutex_unlock(&lock);
}
