// SPDX-License-Identifier: MIT
/*
 * wait.c - the live checks wait in the runtime's clock, through the runtime's own signal
 * waits, never with a host sleep: on hardware a wait with a timeout sleeps in host time (ROCr
 * converts its timeout from the system clock's ticks); on a virtual-time model it moves model
 * time to the deadline. So every figure is device time on the model, which the host's load
 * cannot stretch, and the same code measures real hardware.
 */
#include <errno.h>

#include "probe_internal.h"

/* How late an interrupt may be noticed, in the runtime's clock. */
#define WAIT_STEP_NS 5000000ull

uint64_t probe_clock(struct probe_ctx *c)
{
	uint64_t ns = 0;

	if (probe_hsa_now(&c->hsa, &ns))
		return 0;
	return ns;
}

int probe_wait(struct probe_ctx *c, struct hsaqm_hsa_signal sig, uint64_t until)
{
	struct hsaqm_hsa_signal on = sig.handle ? sig : c->never;
	uint64_t now, start, host_end;

	if (!c->have_never && !sig.handle)
		return -EIO;
	if (probe_hsa_now(&c->hsa, &now))
		return -EIO;
	start = now;
	/*
	 * A runtime whose clock stops (or runs far slower than the host) must not keep the probe
	 * for ever: host time bounds the wait at several times its length plus 10 s.
	 */
	host_end = probe_now_ns() + (until > start ? 4 * (until - start) : 0) + 10000000000ull;
	for (;;) {
		if (sig.handle && c->hsa.signal_load(sig) == 0)
			return 1;
		if (now >= until)
			return 0;
		if (hsaqm_probe_interrupted())
			return -EINTR;
		if (probe_now_ns() > host_end)
			return 0;
		uint64_t step = until - now < WAIT_STEP_NS ? until - now : WAIT_STEP_NS;
		uint64_t ticks = c->hsa.ts_hz ? (uint64_t)((unsigned __int128)step * c->hsa.ts_hz /
							   1000000000u) : step;

		c->hsa.signal_wait(on, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, ticks ? ticks : 1,
				   HSAQM_HSA_WAIT_STATE_BLOCKED);
		if (probe_hsa_now(&c->hsa, &now))
			return -EIO;
	}
}

bool probe_wait_ns(struct probe_ctx *c, uint64_t ns)
{
	static const struct hsaqm_hsa_signal none = { 0 };
	uint64_t now = probe_clock(c);

	if (!now)
		return probe_sleep_ns(ns); /* no runtime clock: host time is all there is */
	return probe_wait(c, none, now + ns) >= 0;
}
