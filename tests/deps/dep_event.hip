// SPDX-License-Identifier: MIT
//
// hipStreamWaitEvent between streams of different priority (issue 24): the waiting stream's
// queue head is an AQL barrier-AND on the other queue's completion signal.
//
//   dep_event CASE [REPS]
//   busy-first      the high stream is busy (a 1 ms kernel) when it is told to wait on an event the
//                   low stream records behind 6 kernels (2.4 ms of model time)
//   backlog-first   the low stream's 6 kernels and event come first, then the high stream waits
//   chain3          high waits on normal, which waits on low (4 low, 2 normal kernels)
//   low-waits-high  the low stream waits on the high stream's event (nothing to inherit)
//
// Each case runs REPS times (default 3) and prints "lat CASE US": the high stream's latency in
// model µs, from its first event to its last; it also checks the order the wait promises (the
// waiting stream's next event is not before the awaited one).
#include "deps.h"

static struct dep_streams d;

// b must not be before a (model time); says which stream waited on which otherwise.
static void dep_order(const char *what, hipEvent_t a, hipEvent_t b)
{
	double us = dep_us(a, b);

	if (us < 0)
		dep_fail("%s: the waiting stream went on %.0f us before the event it waited for", what,
			 -us);
}

static double case_busy_first(void)
{
	hipEvent_t t0 = dep_event(), ev_low = dep_event(), e = dep_event();

	CHECK(hipEventRecord(t0, d.high));
	dep_launch("busy", d.high, 1);
	dep_launch("low", d.low, 6);
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipStreamWaitEvent(d.high, ev_low, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("busy-first: the HIGH stream (busy with a 1 ms kernel when the wait was queued) "
		     "waits on an event of the LOW stream recorded behind 6 low kernels");
	CHECK(hipEventSynchronize(e));
	dep_order("busy-first: high after low's event", ev_low, e);
	double us = dep_us(t0, e);

	CHECK(hipEventDestroy(t0));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(e));
	return us;
}

static double case_backlog_first(void)
{
	hipEvent_t s = dep_event(), ev_low = dep_event(), e = dep_event();

	dep_launch("low", d.low, 6);
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitEvent(d.high, ev_low, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("backlog-first: the HIGH stream (idle) waits on an event of the LOW stream "
		     "recorded behind its backlog of 6 low kernels");
	CHECK(hipEventSynchronize(e));
	dep_order("backlog-first: high after low's event", ev_low, e);
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(e));
	return us;
}

static double case_chain3(void)
{
	hipEvent_t s = dep_event(), ev_low = dep_event(), ev_normal = dep_event(), e = dep_event();

	dep_launch("low", d.low, 4);
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipStreamWaitEvent(d.normal, ev_low, 0));
	dep_launch("normal", d.normal, 2);
	CHECK(hipEventRecord(ev_normal, d.normal));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitEvent(d.high, ev_normal, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("chain3: the HIGH stream waits on the NORMAL stream's event, which waits on the "
		     "LOW stream's event behind 4 low kernels");
	CHECK(hipEventSynchronize(e));
	dep_order("chain3: normal after low's event", ev_low, ev_normal);
	dep_order("chain3: high after normal's event", ev_normal, e);
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(ev_normal));
	CHECK(hipEventDestroy(e));
	return us;
}

static double case_low_waits_high(void)
{
	hipEvent_t s = dep_event(), ev_high = dep_event(), ev_low_end = dep_event(), e = dep_event();

	CHECK(hipEventRecord(s, d.high));
	dep_launch("busy", d.high, 1);
	CHECK(hipEventRecord(ev_high, d.high));
	CHECK(hipStreamWaitEvent(d.low, ev_high, 0));
	dep_launch("low", d.low, 4);
	CHECK(hipEventRecord(ev_low_end, d.low));
	dep_launch("high", d.high, 3);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("low-waits-high: the HIGH stream's 1 ms and 3 short kernels (the LOW stream "
		     "waits on the high stream's event behind the first)");
	CHECK(hipEventSynchronize(e));
	dep_set_what("low-waits-high: the LOW stream's 4 kernels behind its wait on the HIGH "
		     "stream's event");
	CHECK(hipEventSynchronize(ev_low_end));
	dep_order("low-waits-high: low after high's event", ev_high, ev_low_end);
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_high));
	CHECK(hipEventDestroy(ev_low_end));
	CHECK(hipEventDestroy(e));
	return us;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(void);
	} cases[] = {
		{ "busy-first", case_busy_first },
		{ "backlog-first", case_backlog_first },
		{ "chain3", case_chain3 },
		{ "low-waits-high", case_low_waits_high },
	};
	const char *name = argc > 1 ? argv[1] : "";
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	double (*run)(void) = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!strcmp(name, cases[i].name))
			run = cases[i].run;
	if (!run || reps < 1) {
		printf("usage: dep_event busy-first|backlog-first|chain3|low-waits-high [REPS]\n");
		return 2;
	}
	dep_watchdog_start();
	dep_streams_create(&d);
	if (!strcmp(name, "chain3") && d.normal_prio == d.least)
		printf("note chain3: this release's priority range has no middle: the normal stream "
		       "has the low priority\n");
	for (int r = 0; r < reps && !dep_failures; r++)
		printf("lat %s %.0f\n", name, run());
	dep_set_what("%s: hipDeviceSynchronize at the end", name);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
