#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How a recorded queue's arrivals are replayed (experiments/runner/replay.py queue_plan,
docs/replay.md "How a recording becomes a workload"), on made-up recordings whose answer is
known, without model runs:

  think mean    a client that thinks after each answer, its thinks skewed (median 18 ms, mean
                20.4 ms): replayed closed loop, depth 1, thinking the mean, so that its cycle
                (and its phase against the other clients) is the recorded one;
  think spread  its jitter is the thinks' spread as a uniform's;
  periodic      a client submitting every 25 ms +- 0.5 whatever its latency: periodic, 25 ms;
  period mean   a client whose gaps are 24.5 or 28.25 ms (mean 25.7, median 24.6): periodic at their mean
                (its rate), jittered +- their spread as a uniform's, not strictly periodic
                (which would lock its phase against the other clients');
  poisson       exponential gaps: Poisson at the mean rate;
  no evidence   exponential gaps of at least the latency, which hardly varies: the recording
                cannot tell a thinking client from an open loop, and the replay takes the open
                loop (the pessimistic answer for a held queue), not a client thinking the gaps;
  early         a client whose gaps grow with its latency but that submitted before its last
                answer one time in ten was not waiting for it: open loop;
  back to back  a loop that submits while its last request runs: closed, no think time;
  think alike   five clients thinking 20 +- 2 ms (their own fits 0.1-0.5 ms apart) think one
                pooled time, within 0.3 ms of 20; a sixth thinking 30 ms keeps its own;
  decided together  six clients thinking alike, one of them with a latency that never varied
                (on its own undecidable, so open loop): the six's pooled slope decides, and it
                thinks too.
Usage: replay_arrival.py SOURCE_ROOT"""
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "experiments", "runner"))
import replay  # noqa: E402

fails = []
MS = 1e6


def check(what, ok, why=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + why))
    if not ok:
        fails.append(what)


def queue(subs, lats):
    """A recorded queue of one-kernel requests submitted at @subs (ns), each taking its @lats."""
    reqs = []
    for s, l in zip(subs, lats):
        reqs.append({"submit": float(s), "end": float(s + l), "kernels": [("k", 64, 4)],
                     "ksub": [float(s)], "ktimes": [(s, s + l)], "last": (("k", 64, 4), float(l))})
    return {"requests": reqs}


def closed_client(thinks, lats):
    subs, t = [], 0.0
    for th, l in zip(thinks, lats):
        subs.append(t)
        t += l + th
    return subs


rng = random.Random(7)
n = 40
# Latencies mostly 6.3 ms, some held behind another queue (what tells a closed loop apart).
lats = [6.3 * MS + (rng.choice([0, 0, 0, 2.5]) * MS) for _ in range(n)]
thinks = [(18 if rng.random() < 0.7 else 26) * MS + rng.uniform(-0.1, 0.1) * MS for _ in range(n)]
qp = replay.queue_plan(queue(closed_client(thinks, lats), lats), 5000)
a = qp["arrival"]
mean, med = statistics.fmean(thinks[:-1]), statistics.median(thinks[:-1])
check("think mean: closed loop, depth 1", a["arrival"] == "closed" and a["depth"] == 1, str(a))
check("think mean: the replayed think is the thinks' mean (%.2f ms), not their median (%.2f ms)"
      % (mean / MS, med / MS), abs(a.get("think_ns", 0) - mean) < 0.01 * MS,
      "think %.3f ms" % (a.get("think_ns", 0) / MS))
check("think spread: jitter is the thinks' deviation x sqrt(3)",
      abs(a.get("jitter_ns", 0) - statistics.pstdev(thinks[:-1]) * math.sqrt(3)) < 0.01 * MS,
      "jitter %.3f ms" % (a.get("jitter_ns", 0) / MS))

subs = [i * 25 * MS + rng.uniform(-0.5, 0.5) * MS for i in range(n)]
lats = [rng.uniform(5, 12) * MS for _ in range(n)]
a = replay.queue_plan(queue(subs, lats), 5000)["arrival"]
check("periodic: every 25 ms", a["arrival"] == "periodic" and abs(a["period_ns"] - 25 * MS) < 0.5 * MS, str(a))

gaps = [(24.5 if rng.random() < 0.6 else 28.25) * MS + rng.uniform(-0.2, 0.2) * MS for _ in range(n - 1)]
subs = [sum(gaps[:i]) for i in range(n)]
lats = [rng.uniform(5, 12) * MS for _ in range(n)]
a = replay.queue_plan(queue(subs, lats), 5000)["arrival"]
want_j = statistics.pstdev(gaps) * math.sqrt(3)
check("period mean: periodic at the gaps' mean (%.2f ms), not their median (%.2f ms)"
      % (statistics.fmean(gaps) / MS, statistics.median(gaps) / MS),
      a["arrival"] == "periodic" and abs(a["period_ns"] - statistics.fmean(gaps)) < 0.01 * MS, str(a))
check("period mean: jittered +- %.2f ms (the gaps' deviation x sqrt(3))" % (want_j / MS),
      abs(a.get("jitter_ns", 0) - want_j) < 0.01 * MS, str(a))

subs, t = [], 0.0
for _ in range(200):
    subs.append(t)
    t += rng.expovariate(1 / (40 * MS))
lats = [2 * MS] * len(subs)
a = replay.queue_plan(queue(subs, lats), 5000)["arrival"]
check("poisson: at the mean rate", a["arrival"] == "poisson" and
      abs(a["rate"] - 1e9 / statistics.fmean(b - x for x, b in zip(subs, subs[1:]))) < 1e-6, str(a))

subs, t = [], 0.0
for _ in range(200):
    subs.append(t)
    t += 3 * MS + rng.expovariate(1 / (40 * MS))
lats = [2 * MS + rng.uniform(0, 0.001) * MS for _ in subs]
a = replay.queue_plan(queue(subs, lats), 5000)["arrival"]
ev = a.get("evidence", {})
check("no evidence: open loop, the slope's standard error above 1", a["arrival"] == "poisson" and
      ev.get("se", 0) > 1 and not ev.get("decided"), str(a))

lats = [6.3 * MS + (rng.choice([0, 0, 0, 2.5]) * MS) for _ in range(n)]
thinks = [rng.uniform(18, 22) * MS for _ in range(n)]
for i in range(0, n, 10):
    thinks[i] = -lats[i] / 2  # submitted halfway through the request before
a = replay.queue_plan(queue(closed_client(thinks, lats), lats), 5000)["arrival"]
check("early: submitted before the answer 4 times in 39, open loop", a["arrival"] != "closed" and
      a.get("evidence", {}).get("early") == 4, str(a))

subs = [i * 1 * MS for i in range(n)]
lats = [3 * MS] * n
a = replay.queue_plan(queue(subs, lats), 5000)["arrival"]
check("back to back: closed, deeper than one, no think time", a["arrival"] == "closed" and a["depth"] > 1
      and not a.get("think_ns"), str(a))

qs = []
for i in range(6):
    lats = [6.3 * MS + (rng.choice([0, 0, 0, 2.5]) * MS) for _ in range(30)]
    base = 30 if i == 5 else 20
    thinks = [rng.uniform(base - 2, base + 2) * MS for _ in range(30)]
    q = replay.queue_plan(queue(closed_client(thinks, lats), lats), 5000)
    q["name"] = "c%d" % i
    qs.append(q)
own = [q["arrival"]["think_ns"] / MS for q in qs[:5]]
replay.think_pool(qs)
alike = {q["arrival"]["think_ns"] for q in qs[:5]}
check("think alike: five clients of 20 +- 2 ms (own fits %s ms) think one time near 20 ms"
      % "/".join("%.2f" % x for x in own), len(alike) == 1 and abs(alike.pop() / MS - 20) < 0.3 and
      all(len(q["arrival"].get("pooled_with", [])) == 4 for q in qs[:5]), str([q["arrival"] for q in qs]))
check("think alike: the 30 ms client keeps its own think", "pooled_with" not in qs[5]["arrival"] and
      abs(qs[5]["arrival"]["think_ns"] / MS - 30) < 1, str(qs[5]["arrival"]))

qs = []
for i in range(6):
    lats = [6.3 * MS + (rng.uniform(0, 0.001) if i == 5 else rng.choice([0, 0, 0, 2.5])) * MS for _ in range(30)]
    thinks = [rng.uniform(18, 22) * MS for _ in range(30)]
    q = replay.queue_plan(queue(closed_client(thinks, lats), lats), 5000)
    q["name"] = "c%d" % i
    qs.append(q)
alone = qs[5]["arrival"]["arrival"]
replay.arrival_pool(qs)
g = qs[5]["arrival"]["evidence"].get("group", {})
check("decided together: the client undecidable alone (%s on its own) thinks with the group (slope %s +- %s)"
      % (alone, g.get("slope"), g.get("se")), alone != "closed" and g.get("decided") and
      all(q["arrival"]["arrival"] == "closed" and q["arrival"].get("think_ns") for q in qs), str(qs[5]["arrival"]))

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
