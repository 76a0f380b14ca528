#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fit of replayed kernel times (experiments/runner/replay.py fit_step, docs/replay.md
"Fitting the kernel times"), against latency functions whose answer is known, without model runs:

  waiting      a queue whose native latency is its own time plus a fixed wait behind another
               (L = 4 + 2 s ms): the fit reaches the recorded P50 within FIT_TOLERANCE in at
               most four runs, as hsaqm-experiment --replay-fit 4 allows;
  two queues   two such queues fitted at once, each to its own target;
  bounded step a queue far off (recorded 30x the replay) moves by at most x3 per run;
  undetermined a queue whose latency hardly moves with its times is marked fit_undetermined
               and no longer followed;
  flat         nor one whose latency did not move at all (no division by its zero change);
  fitted       a queue within tolerance keeps its scale;
  untouched    a queue with no run yet keeps its scale.
Usage: replay_fit.py SOURCE_ROOT"""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "experiments", "runner"))
import replay  # noqa: E402

fails = []


def check(what, ok, why=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + why))
    if not ok:
        fails.append(what)


def plan(targets):
    """A plan of one process with a queue per target P50 (ms)."""
    return [{"pid": 1, "queues": [{"queue": i, "kernels": [{}], "fit_scale": 1.0,
                                   "latency_ms": [t] * 5} for i, t in enumerate(targets)]}]


def fit(pl, latency, runs):
    """Runs the fit as hsaqm-experiment does: measure, stop within tolerance, else step."""
    history = {}
    for n in range(runs):
        for q in pl[0]["queues"]:
            history.setdefault((1, q["queue"]), []).append((q["fit_scale"], latency(q)))
        worst = replay.fit_step(pl, history)
        if worst <= replay.FIT_TOLERANCE:
            return n + 1, worst
    return runs, worst


# waiting: recorded 7.5 ms, the replay at scale 1 gives 4 + 2 = 6 ms: the answer is s = 1.75.
pl = plan([7.5])
runs, worst = fit(pl, lambda q: 4.0 + 2.0 * q["fit_scale"], 4)
check("waiting: within %.0f %% of the recorded P50 in at most 4 runs" % (100 * replay.FIT_TOLERANCE),
      worst <= replay.FIT_TOLERANCE, "largest error %.1f %% after %d runs" % (100 * worst, runs))
check("waiting: the scale found is the answer (1.75)", abs(pl[0]["queues"][0]["fit_scale"] - 1.75) < 0.1,
      "scale %.3f" % pl[0]["queues"][0]["fit_scale"])

pl = plan([3.0, 12.0])
runs, worst = fit(pl, lambda q: (1.0 + 4.0 * q["fit_scale"]) if q["queue"] == 0 else 10.0 * q["fit_scale"], 4)
check("two queues: each within tolerance of its own target", worst <= replay.FIT_TOLERANCE,
      "largest error %.1f %% after %d runs, scales %s" % (100 * worst, runs,
                                                            [q["fit_scale"] for q in pl[0]["queues"]]))

pl = plan([30.0])
replay.fit_step(pl, {(1, 0): [(1.0, 1.0)]})
check("bounded step: a queue 30x off moves x3 in one run", pl[0]["queues"][0]["fit_scale"] == 3.0,
      "scale %.3f" % pl[0]["queues"][0]["fit_scale"])

# undetermined: a queue whose latency is the waiting behind another (L = 9 + 0.05 s: elasticity
# 0.005), recorded at 7.5: the fit stops following it after two runs and says so.
pl = plan([7.5])
runs, worst = fit(pl, lambda q: 9.0 + 0.05 * q["fit_scale"], 4)
q = pl[0]["queues"][0]
check("undetermined: marked so after two runs, not driven by the error", q.get("fit_undetermined") and runs == 2
      and q["fit_scale"] > 1 / 3 - 1e-9, "undetermined %s after %d runs, scale %.3f"
      % (q.get("fit_undetermined"), runs, q["fit_scale"]))

# flat: a latency that did not move at all between two runs (the runs' noise floor): no step
# from a division by its zero change; undetermined.
pl = plan([7.5])
runs, worst = fit(pl, lambda q: 9.0, 4)
check("flat: a latency that does not move is undetermined after two runs",
      pl[0]["queues"][0].get("fit_undetermined") and runs == 2, "after %d runs: %r" % (runs, pl[0]["queues"][0]))

# fitted: a queue already within tolerance keeps its scale, also when its last two runs gave
# the same latency (which divided by zero on 2026-11-28, through a real HIP recording).
pl = plan([7.5])
pl[0]["queues"][0]["fit_scale"] = 1.1
replay.fit_step(pl, {(1, 0): [(1.0, 7.55), (1.1, 7.55)]})
check("fitted: a queue within tolerance keeps its scale", pl[0]["queues"][0]["fit_scale"] == 1.1,
      "scale %.3f" % pl[0]["queues"][0]["fit_scale"])

pl = plan([5.0, 5.0])
replay.fit_step(pl, {(1, 0): [(1.0, 10.0)]})
check("untouched: a queue without a run keeps its scale", pl[0]["queues"][1]["fit_scale"] == 1.0,
      "scale %.3f" % pl[0]["queues"][1]["fit_scale"])

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
