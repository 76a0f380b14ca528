/* SPDX-License-Identifier: MIT */
/*
 * shared_internal.h - shared mode (shared.c): the constants of the device process's
 * protocol and address plan, and a test hook. docs/sim.md, "Shared mode", has the design.
 * Nothing outside sim/, tools/simd and the model's tests includes it.
 */
#ifndef HSAQM_SIM_SHARED_INTERNAL_H
#define HSAQM_SIM_SHARED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hsaqm-sim/sim.h"

/* Protocol version: a client of another version gets -EPROTO. */
#define SIM_SHARED_PROTO_VERSION 3u /* 3: every call carries the time it was made (sim_msg.at) */

/*
 * Where the device process maps the memory it shares: the device page first (at the first
 * free GiB from the base), then one arena per client. Every client maps each at the same
 * address. The range is chosen to be free in any process: below the mmap base that ASLR
 * picks (at most 1 TiB under the stack), above the PIE and heap, away from ASan's allocator
 * (0x600000000000) and inside ThreadSanitizer's application range (0x7e8000000000 up).
 */
#define SIM_SHARED_REGION_BASE 0x7e8000000000ull
#define SIM_SHARED_REGION_END 0x7ef000000000ull
#define SIM_SHARED_CLIENT_BASE (SIM_SHARED_REGION_BASE + (8ull << 30))
#define SIM_SHARED_MAX_CLIENTS 64

/* hsaqm_sim_connect() presenting protocol version @version (tests of the -EPROTO path). */
int sim_shared_connect_version(const char *path, uint32_t version, struct hsaqm_sim **out);

/*
 * A client's view of the device process's end (shared.c). sim_shared_lost(): true once the
 * device process has hung up (its queues have failed with HSA_STATUS_ERROR_FATAL); false for
 * a model that is not a shared client. sim_shared_wait_until(): @abs_mono_ns for a host wait's
 * futex, shortened for a shared client so that the wait looks at sim_shared_lost() again
 * within a tenth of a second (signal.c's waits: nothing of a client hangs on a dead device).
 */
bool sim_shared_lost(const struct hsaqm_sim *sim);
uint64_t sim_shared_wait_until(const struct hsaqm_sim *sim, uint64_t abs_mono_ns);

/*
 * Tests: the device's connection threads sleep @ns before they perform a client's suspend
 * (0: not), as a device process descheduled that long would: the call must still act at the
 * time the client made it. Set before the device process forks or serves.
 */
void sim_shared_test_delay_suspend(uint64_t ns);

/*
 * A client's KFD face around an ioctl's handler: @begin stamps this thread's next control
 * calls with the model time now (the ioctl's), so they act when the ioctl was made, not after
 * the face's own work and the socket's lock; false ends it. A no-op for a model that is not
 * shared. sim_shared_call_restamp(): the handler waited (a destroy for a resume): what it
 * calls next is made now.
 */
void sim_shared_call_stamp(const struct hsaqm_sim *sim, bool begin);
void sim_shared_call_restamp(const struct hsaqm_sim *sim);

/* A client's control calls whose reply came after the return time the device named
 * (hsaqm_sim_config.call_return_ns): their length holds the host's lateness. 0 otherwise. */
uint64_t sim_shared_late_returns(const struct hsaqm_sim *sim);

/* Clients attached to a serving model now, and the queues they hold there (tests). */
unsigned int sim_shared_client_count(struct hsaqm_sim *sim);
unsigned int sim_shared_queue_count(struct hsaqm_sim *sim);

#endif /* HSAQM_SIM_SHARED_INTERNAL_H */
