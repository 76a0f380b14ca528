#!/usr/bin/env python3
"""Checks what made a dependency case complete, from one --stats file of hsaqm-run (issue 24).

deps_stats.py STATS EXPECT      exit 0 silently when the expectation holds, else one line, exit 1
deps_stats.py STATS --summary   one line: the dependency counters per HIP stream priority
deps_stats.py LIST --stuck       one line from an `hsaqmctl list --json` snapshot: each process (comm,
                                priority) with its queues' priority, state and preemptions
deps_stats.py STATS --daemon     one line: how often hsaqmd held the process (the tool's
                                "daemon" holds) and its low queues (their daemon_holds, kept
                                in the stats written at exit); exit 1 when the daemon never
                                held a low queue

The tool's queues carry hsa_priority (low, normal, high: the HIP stream priority that reached
hsa_amd_queue_set_priority) and, with the fix of issue 24, the counters
  dep_waits      waits seen at the queue's doorbell on a signal not yet satisfied
  dep_inherited  times the queue ran packets on behalf of a higher queue waiting on it
  dep_stalls     times the queue's head waited past HSAQM_DEP_BOUND_MS on something hsaqm cannot
                 attribute and stopped counting as demand
EXPECT:
  inherit          the low queues inherited (dep_inherited >= 1) and a higher queue waited
                   (dep_waits >= 1 on a high queue)
  inherit-only     inherit, and no high queue passed the bound (dep_stalls 0: a wait on a
                   working producer of its own process is not bounded, docs/lib.md "The bound";
                   a stall there would stop the inheritance): every wait of the case is on an
                   event of its own process
  stall            a high queue's head passed the bound (dep_stalls >= 1)
  inherit-or-stall either (a wait on memory a lower queue's copy or memset writes)
  none             no queue inherited (a lower queue waits on a higher one)
  any              some queue inherited or passed the bound
  seen             a high queue's wait was seen (dep_waits >= 1): nothing else asked (Lv1, where the
                   producer's packets may all be released before the wait: run.sh says when)
"""
import json
import sys

FIELDS = ("dep_waits", "dep_inherited", "dep_stalls")


def by_priority(queues):
    sums = {}
    for q in queues:
        p = q.get("hsa_priority", "?")
        s = sums.setdefault(p, dict.fromkeys(FIELDS, 0))
        for f in FIELDS:
            s[f] += q.get(f, 0)
    return sums


def daemon_held(stats):
    d = stats.get("tool", {}).get("daemon") or {}
    low = sum(q.get("daemon_holds", 0) for q in stats.get("queues", [])
              if q.get("hsa_priority") == "low")
    print(f"hsaqmd held the process {d.get('holds', '?')} times, its low queue {low} "
          f"(the case's stats)")
    return 0 if low >= 1 else 1


def stuck(doc):
    procs = []
    for p in doc.get("processes", []):
        qs = ", ".join(f"{q.get('priority')} {q.get('state')} preemptions {q.get('preemptions')}"
                       for q in p.get("queues", []))
        procs.append(f"{p.get('comm')} (priority {p.get('priority')}): {qs or 'no queue'}")
    print("; ".join(procs) or "no process registered")
    return 0


def main():
    path, expect = sys.argv[1], sys.argv[2]
    what = "snapshot" if expect == "--stuck" else "stats file"
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"no readable {what} {path}: {e}")
        return 1
    if expect == "--stuck":
        return stuck(doc)
    queues = doc.get("queues", [])
    missing = [f for f in FIELDS if queues and f not in queues[0]]
    if not queues:
        print("the stats list no queue")
        return 1
    if expect == "--daemon":
        return daemon_held(doc)
    sums = by_priority(queues)
    summary = "; ".join(f"{p}: waits {s['dep_waits']} inherited {s['dep_inherited']} "
                        f"stalls {s['dep_stalls']}" for p, s in sorted(sums.items()))
    if expect == "--summary":
        print("no dependency counters (" + ", ".join(missing) + " absent)" if missing else summary)
        return 0
    if missing:
        print(f"the stats have no {', '.join(missing)}: this build's tool does not count "
              "dependencies (the fix of issue 24 is not in it)")
        return 1
    zero = dict.fromkeys(FIELDS, 0)
    low, high = sums.get("low", zero), sums.get("high", zero)
    inherited = sum(s["dep_inherited"] for s in sums.values())
    stalls = sum(s["dep_stalls"] for s in sums.values())
    inherit = low["dep_inherited"] >= 1 and high["dep_waits"] >= 1
    ok = {
        "inherit": inherit,
        "inherit-only": inherit and high["dep_stalls"] == 0,
        "stall": high["dep_stalls"] >= 1,
        "inherit-or-stall": low["dep_inherited"] >= 1 or high["dep_stalls"] >= 1,
        "none": inherited == 0,
        "any": inherited + stalls >= 1,
        "seen": high["dep_waits"] >= 1,
    }
    if expect not in ok:
        print(f"unknown expectation {expect}")
        return 1
    if not ok[expect]:
        print(f"expected {expect}, the stats say {summary}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
