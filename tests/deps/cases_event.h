// SPDX-License-Identifier: MIT
//
// The hipStreamWaitEvent cases of the dependency suite (issue 24), shared by dep_event.hip (one
// case per run) and dep_mix.hip (a seeded mix). Each returns the high stream's latency in model
// µs and checks the order the wait promises (the waiting stream's next event is not before the
// awaited one). dep_nlow low kernels (400 us each) stand before the awaited event; the chain
// and low-waits-high take two thirds of them.
#ifndef HSAQM_TESTS_DEPS_CASES_EVENT_H
#define HSAQM_TESTS_DEPS_CASES_EVENT_H

#include "deps.h"

static int dep_nlow_chain(void)
{
	return dep_nlow * 2 / 3 > 0 ? dep_nlow * 2 / 3 : 1;
}


// b must not be before a (model time); says which stream waited on which otherwise.
static void dep_order(const char *what, hipEvent_t a, hipEvent_t b)
{
	double us = dep_us(a, b);

	if (us < 0)
		dep_fail("%s: the waiting stream went on %.0f us before the event it waited for", what,
			 -us);
}

static double case_busy_first(int rep)
{
	(void)rep;
	hipEvent_t t0 = dep_event(), ev_low = dep_event(), e = dep_event();

	CHECK(hipEventRecord(t0, d.high));
	dep_launch("busy", d.high, 1);
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipStreamWaitEvent(d.high, ev_low, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("busy-first: the HIGH stream (busy with a 1 ms kernel when the wait was queued) "
		     "waits on an event of the LOW stream recorded behind %d low kernels", dep_nlow);
	CHECK(hipEventSynchronize(e));
	dep_order("busy-first: high after low's event", ev_low, e);
	double us = dep_us(t0, e);

	dep_events_destroy({ t0, ev_low, e });
	return us;
}

static double case_backlog_first(int rep)
{
	(void)rep;
	hipEvent_t s = dep_event(), ev_low = dep_event(), e = dep_event();

	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitEvent(d.high, ev_low, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("backlog-first: the HIGH stream (idle) waits on an event of the LOW stream "
		     "recorded behind its backlog of %d low kernels", dep_nlow);
	CHECK(hipEventSynchronize(e));
	dep_order("backlog-first: high after low's event", ev_low, e);
	double us = dep_us(s, e);

	dep_events_destroy({ s, ev_low, e });
	return us;
}

static double case_chain3(int rep)
{
	(void)rep;
	hipEvent_t s = dep_event(), ev_low = dep_event(), ev_normal = dep_event(), e = dep_event();

	dep_launch("low", d.low, dep_nlow_chain());
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipStreamWaitEvent(d.normal, ev_low, 0));
	dep_launch("normal", d.normal, 2);
	CHECK(hipEventRecord(ev_normal, d.normal));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitEvent(d.high, ev_normal, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("chain3: the HIGH stream waits on the NORMAL stream's event, which waits on the "
		     "LOW stream's event behind %d low kernels", dep_nlow_chain());
	CHECK(hipEventSynchronize(e));
	dep_order("chain3: normal after low's event", ev_low, ev_normal);
	dep_order("chain3: high after normal's event", ev_normal, e);
	double us = dep_us(s, e);

	dep_events_destroy({ s, ev_low, ev_normal, e });
	return us;
}

static double case_low_waits_high(int rep)
{
	(void)rep;
	hipEvent_t s = dep_event(), ev_high = dep_event(), ev_low_end = dep_event(), e = dep_event();

	CHECK(hipEventRecord(s, d.high));
	dep_launch("busy", d.high, 1);
	CHECK(hipEventRecord(ev_high, d.high));
	CHECK(hipStreamWaitEvent(d.low, ev_high, 0));
	dep_launch("low", d.low, dep_nlow_chain());
	CHECK(hipEventRecord(ev_low_end, d.low));
	dep_launch("high", d.high, 3);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("low-waits-high: the HIGH stream's 1 ms and 3 short kernels (the LOW stream "
		     "waits on the high stream's event behind the first)");
	CHECK(hipEventSynchronize(e));
	dep_set_what("low-waits-high: the LOW stream's %d kernels behind its wait on the HIGH "
		     "stream's event", dep_nlow_chain());
	CHECK(hipEventSynchronize(ev_low_end));
	dep_order("low-waits-high: low after high's event", ev_high, ev_low_end);
	double us = dep_us(s, e);

	dep_events_destroy({ s, ev_high, ev_low_end, e });
	return us;
}

#endif
