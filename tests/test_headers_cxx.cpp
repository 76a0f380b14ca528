// SPDX-License-Identifier: MIT
//
// Every header that declares extern "C" compiles as C++ (C++11), and barrier.h's C++ branch
// (std::atomic) does what its C11 branch does: each operation's result and the value it leaves.
// A C++ program (a HIP runtime extension, a profiler) can include hsaqm's headers. Exits 0 when
// every check holds, 1 otherwise (with the failed checks named).
#include <cstdint>
#include <cstdio>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm/backend.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-dclient/daemon_client.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "hsaqm/process.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-sim/sim.h"

static int failures;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
			failures++;                                                      \
		}                                                                        \
	} while (0)

int main()
{
	uint64_t v = 5;
	uint32_t w = 0xf0;
	const uint64_t c = 7;
	uint64_t e = 6;

	// One thread: the barrier calls below check that each macro compiles and computes in C++;
	// they order nothing against anyone.
	CHECK(HSAQM_READ_ONCE(v) == 5);
	HSAQM_WRITE_ONCE(v, 6u); // a value of another integer type converts, as in C
	CHECK(hsaqm_load_acquire(&v) == 6);
	hsaqm_store_release(&v, 10u);
	CHECK(hsaqm_load_relaxed(&v) == 10);
	hsaqm_store_relaxed(&v, 11u);
	CHECK(hsaqm_fetch_add(&v, 4u) == 11 && v == 15);
	CHECK(hsaqm_fetch_sub(&v, 5u) == 15 && v == 10);
	CHECK(hsaqm_fetch_or(&w, 0x0fu) == 0xf0 && w == 0xff);
	CHECK(hsaqm_fetch_and(&w, 0x3cu) == 0xff && w == 0x3c);
	CHECK(hsaqm_fetch_xor(&w, 0xffu) == 0x3c && w == 0xc3);
	CHECK(hsaqm_exchange(&v, 20u) == 10 && v == 20);
	CHECK(!hsaqm_cas(&v, &e, 30u) && e == 20 && v == 20); // failure: e gets the value
	CHECK(hsaqm_cas(&v, &e, 30u) && v == 30);
	CHECK(hsaqm_load_acquire(&c) == 7); // loads through a const pointer
	hsaqm_smp_mb();
	hsaqm_cpu_relax();
	// The ring writer's inline paths, instantiated in C++.
	union hsaqm_aql_packet ring[4] = {};
	uint64_t wi = 0, ri = 0;
	struct hsaqm_ring r = {};

	r.base = ring;
	r.size = 4;
	r.mask = 3;
	r.write_index = &wi;
	r.read_index = &ri;
	CHECK(hsaqm_ring_slot(&r, 5) == &ring[1]);
	CHECK(hsaqm_aql_slot_load_header(&ring[0]) == 0);
	if (failures)
		std::printf("%d checks failed\n", failures);
	else
		std::printf("ok: every extern \"C\" header compiles as C++; barrier.h's C++ branch agrees\n");
	return failures ? 1 : 0;
}
