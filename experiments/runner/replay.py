# SPDX-License-Identifier: MIT
"""replay.py - recordings (hsaqm-run --record, docs/replay.md) as a workload file the runner
replays on the model (hsaqm-experiment --replay).

A recording holds, per process and queue, every packet with its submission time (host
CLOCK_MONOTONIC) and, for kernel dispatches with a completion signal, their start and end in
the runtime's timestamp domain (TIMES records), with CLOCK records relating the two clocks.
The workload file form is statistical (docs/experiments.md): per stream one task, submitting
one model (a list of kernels) under an arrival process. The conversion, per queue:

  requests  the packets up to and including each one with a completion signal (what a host
            waits on: HIP's stream and event synchronisation, a framework's step end);
  model     the queue's most frequent request shape (kernels, workgroups, waves per
            workgroup, in order); requests of other shapes are counted and said, not replayed.
            A kernel is its name when the recording has it (format version 3: the dump's
            kernel_name), else its kernel object;
  times     a request's service time is its end minus the later of its submission and the
            previous request's end (the queue ran it then); the model's per-workgroup times
            make its standalone time on the model equal to the 10th percentile of those
            (the least disturbed requests); each kernel takes its own time where the
            recording has one for every kernel (kernel_split: a format 5 recording made at
            level 0), the 10th percentile per position; in an older recording, a kernel
            object timed on its own (the request's last kernel) keeps its own measured time
            and the others share the service time equally per round of workgroups;
  arrivals  closed loop, as deep as the median number in flight plus one, no think time,
            when requests mostly find earlier ones of their queue still running; else a
            client that thinks after each answer (closed, depth 1, the thinks' mean and
            spread) when its submissions follow the last answer more closely than the last
            submission; else open loop (periodic at the mean gap, jittered as the gaps were,
            when they vary by less than 25 %, else Poisson at the mean rate); clients that
            think alike decide that form together (arrival_pool) and think one pooled time
            (think_pool);
  role      a process with an open-loop queue is online, else offline (for the report).

  launch    a request launched kernel by kernel is replayed at the recorded pace (launch=)
            and timed from its first launch (queue_plan says how);
  fit       hsaqm-experiment --replay-fit scales each queue's kernel times so that the native
            replay's P50 is the recording's (fit_step; docs/replay.md "Fitting the kernel times").

Dependencies between queues (barrier packets) are not replayed: each stream runs on its own.
Standard library only.
"""
import bisect
import json
import math
import statistics
import subprocess

# The model's GPU (sim/profile.c, the built-in MI308X): 80 CUs of 4 SIMDs x 8 wave slots.
CUS = 80
WAVES_PER_CU = 32
WAVE = 64

PRIO = {"high": "high", "normal": "normal", "low": "low"}


class ReplayError(Exception):
    """A recording that cannot be replayed: the message names it and says why."""


def read_dump(dump_bin, files):
    """Every record of @files, merged in time order by hsaqm-record-dump (JSON lines)."""
    out = subprocess.run([dump_bin] + list(files), capture_output=True, text=True)
    if out.returncode:
        raise ReplayError(out.stderr.strip() or "hsaqm-record-dump failed")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def pct(values, q):
    """The q-th percentile (0-100), nearest rank; None for none."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(math.ceil(q / 100.0 * len(v))) - 1))]


def clock_map(clocks, pid):
    """host CLOCK_MONOTONIC ns -> the timestamp domain in ns, from the CLOCK records."""
    if not clocks:
        raise ReplayError("process %d: no CLOCK record: the recording has no dispatch times "
                          "(made before format version 2, or no dispatch had a completion "
                          "signal that completed while it recorded)" % pid)
    pts = [(c["t_ns"], c["system_ts"] * 1e9 / c["system_hz"]) for c in clocks]
    if len(pts) == 1:
        t0, s0 = pts[0]
        return lambda t: s0 + (t - t0)
    # Least squares: the model's clock may run at another rate than the host's (time scale).
    mt = statistics.fmean(p[0] for p in pts)
    ms = statistics.fmean(p[1] for p in pts)
    var = sum((p[0] - mt) ** 2 for p in pts)
    slope = sum((p[0] - mt) * (p[1] - ms) for p in pts) / var if var else 1.0
    return lambda t: ms + (t - mt) * slope


def wgs_waves(p):
    g, w = p["grid"], p["workgroup"]
    wgs = 1
    for i in range(3):
        wgs *= -(-max(1, g[i]) // max(1, w[i]))
    items = max(1, w[0]) * max(1, w[1]) * max(1, w[2])
    return wgs, min(32, -(-items // WAVE))


def rounds(wgs, waves):
    """Rounds of workgroups a kernel takes alone on the model's GPU."""
    return -(-wgs // max(1, (CUS * WAVES_PER_CU) // waves))


def analyse(records):
    """Per process and queue: requests with their kernels, submission and end (model ns)."""
    procs = {}
    for r in records:
        if r.get("kind") == "process":
            procs[r["pid"]] = {"comm": r["comm"], "file": r["file"], "queues": {}, "clocks": [],
                               "times": {}, "torn": r["torn"]}
    for r in records:
        if r.get("kind") == "process":
            continue
        p = procs[r["pid"]]
        k = r["kind"]
        if k == "clock":
            p["clocks"].append(r)
        elif k == "times":
            p["times"][(r["queue"], r["index"])] = (r["start"], r["end"])
        elif k == "queue":
            p["queues"][r["queue"]] = {"name": r["name"], "packets": [], "prio": None}
        elif k in ("kernel_dispatch", "barrier_and", "barrier_or", "barrier_value", "vendor",
                   "agent_dispatch"):
            q = p["queues"].setdefault(r["queue"], {"name": "q%d" % r["queue"], "packets": [],
                                                    "prio": None})
            if q["prio"] is None:
                q["prio"] = r["hsa_priority"]
            q["packets"].append(r)
    for pid, p in procs.items():
        if not any(q["packets"] for q in p["queues"].values()):
            continue
        to_ts = clock_map(p["clocks"], pid)
        for qid, q in p["queues"].items():
            reqs, cur = [], None
            for r in sorted(q["packets"], key=lambda r: r["index"]):
                if cur is None:
                    cur = {"submit": to_ts(r["t_ns"]), "kernels": [], "end": None, "last": None,
                           "ksub": [], "ktimes": []}
                if r["kind"] == "kernel_dispatch":
                    # When the host wrote it: a request launched kernel by kernel (a framework's
                    # per-kernel launch cost) is replayed at that pace, not all at once.
                    cur["ksub"].append(to_ts(r["t_ns"]))
                    # By name where recorded: what a person reads, and the same for every
                    # executable a kernel was loaded in.
                    kid = r.get("kernel_name") or r["kernel_object"]
                    q.setdefault("recorded_dispatches", {})
                    q["recorded_dispatches"][kid] = q["recorded_dispatches"].get(kid, 0) + 1
                    wgs, waves = wgs_waves(r)
                    cur["kernels"].append((kid, wgs, waves))
                    # Its own start and end: every kernel's at level 0 since format version 5
                    # (the recorder's signal on those the application left unsignalled).
                    cur["ktimes"].append(p["times"].get((qid, r["index"])))
                if r.get("completion_signal", "0x0") != "0x0":
                    t = p["times"].get((qid, r["index"]))
                    if t:
                        cur["end"] = float(t[1])
                        if r["kind"] == "kernel_dispatch":
                            cur["last"] = (cur["kernels"][-1], float(t[1] - t[0]))
                    reqs.append(cur)
                    cur = None
            q["requests"] = [x for x in reqs if x["kernels"]]
            q["open_tail"] = bool(cur and cur["kernels"])  # dispatches after the last signal
    return procs


def groups(shape):
    """Consecutive equal kernels as (kernel, count)."""
    out = []
    for k in shape:
        if out and out[-1][0] == k:
            out[-1][1] += 1
        else:
            out.append([k, 1])
    return out


def queue_plan(q, launch_ns):
    """What one queue becomes: its model, arrival and the recorded latencies. @launch_ns: what
    the model adds to every kernel before its workgroups start (dispatch_launch_ns), which the
    recorded times contain already."""
    reqs = q["requests"]
    if not reqs:
        return None
    shapes = {}
    for r in reqs:
        shapes.setdefault(tuple(r["kernels"]), []).append(r)
    shape, main = max(shapes.items(), key=lambda kv: len(kv[1]))
    # Launch pace (the runner's launch=): a request launched kernel by kernel (a framework's
    # per-kernel launch cost) is replayed at that pace, not all at once. The recording sees a
    # kernel when its doorbell rings: one per kernel for HIP, one per chunk of about 0.5 ms of
    # launches for the runner (docs/experiments.md "Host launch time"). So per request, the
    # kernels of the first doorbell (those within a quarter of the largest gap of the first),
    # k of them, were launched k paces before it: the request began then, which is where its
    # latency starts (as the program measuring it would have it), and the pace is the spread of
    # the doorbells over the kernels after the first doorbell's. Replayed only where it is a
    # visible part of the request (5 % of the median service below): a request written at once
    # takes the host a few microseconds per packet, which the runner's own writing reproduces.
    paces, firsts = [], {}
    for r in main:
        ks = r["ksub"]
        gaps = [b - a for a, b in zip(ks, ks[1:])]
        if not gaps or max(gaps) <= 0:
            continue
        k = 1
        while k < len(ks) and gaps[k - 1] < max(gaps) / 4:
            k += 1
        if k < len(ks):
            paces.append((ks[-1] - ks[0]) / (len(ks) - k))
            firsts[id(r)] = k
    launch_pace = statistics.median(paces) if paces else 0.0
    if paces and launch_pace * (len(shape) - 1) >= 0.05 * statistics.median(
            r["end"] - r["submit"] for r in main if r["end"] is not None):
        for r in main:
            if id(r) in firsts:
                r["submit"] = min(r["submit"], r["ksub"][0] - firsts[id(r)] * launch_pace)
    else:
        launch_pace = 0.0
    # Service times: the queue ran the request from the later of its submission and the end
    # of the request before it (its kernels are in order behind it).
    svc, prev_end, lat, last_d = [], None, [], {}
    for r in reqs:
        if r["end"] is not None:
            begin = max(r["submit"], prev_end) if prev_end is not None else r["submit"]
            if tuple(r["kernels"]) == shape:
                svc.append(r["end"] - begin)
                lat.append((r["end"] - r["submit"], r["end"] - begin, r["submit"]))
                if r["last"]:
                    last_d.setdefault(r["last"][0], []).append(r["last"][1])
            prev_end = r["end"] if prev_end is None else max(prev_end, r["end"])
    if not svc:
        return {"skip": "no request of its main shape has an end time"}
    service = pct(svc, 10)
    grp = groups(shape)
    work = service - launch_ns * len(shape)
    own = kernel_split(main, grp, launch_ns)
    if own:
        # Per-kernel times (format 5): each group takes its kernels' own times.
        kernels = [{"count": n, "wg": k[1], "waves": k[2], "kobj": k[0],
                    "time_ns": max(1000, int(round(t / (n * rounds(k[1], k[2])))))}
                   for (k, n), t in zip(grp, own)]
    else:
        # Per-workgroup times: the timed kernel keeps its measured median; the rest share
        # what is left of the service time equally per round.
        fixed = {k: max(0.0, statistics.median(v) - launch_ns) for k, v in last_d.items()}
        fixed_total = sum(fixed[k] * n for k, n in grp if k in fixed)
        rest_rounds = sum(rounds(k[1], k[2]) * n for k, n in grp if k not in fixed)
        if rest_rounds and work - fixed_total <= 0:
            fixed, fixed_total = {}, 0.0
            rest_rounds = sum(rounds(k[1], k[2]) * n for k, n in grp)
        per_round = (work - fixed_total) / rest_rounds if rest_rounds else 0.0
        kernels = []
        for k, n in grp:
            t = fixed[k] / rounds(k[1], k[2]) if k in fixed else per_round
            kernels.append({"count": n, "wg": k[1], "waves": k[2],
                            "time_ns": max(1000, int(round(t))), "kobj": k[0]})
    # Arrivals.
    subs = [r["submit"] for r in main]
    ends = [r["end"] for r in main]
    inflight, done = [], []
    for i, s in enumerate(subs):
        # Earlier requests still running at this submission (one without an end: running).
        inflight.append(i - bisect.bisect_right(done, s))
        bisect.insort(done, ends[i] if ends[i] is not None else float("inf"))
    gaps = [b - a for a, b in zip(subs, subs[1:]) if b > a]
    # A client that waits for each answer, then thinks: its next submission follows the last
    # completion more closely than the last submission (W2's BERT clients: 20 ms +- 2 after
    # each answer). Replayed open loop at the mean rate, it would keep submitting while a
    # scheduler holds it, which the recorded client never did.
    ev = think_evidence(subs, ends)
    thinks, lg = ev.pop("thinks"), ev.pop("lg")
    arrival = {}
    if len(subs) > 1 and statistics.median(inflight) >= 1:
        arrival = {"arrival": "closed", "depth": min(64, int(statistics.median(inflight)) + 1)}
    else:
        arrival = arrival_of(ev["think_loop"], thinks, gaps, service)
    # Latency as the runner times it (docs/experiments.md "Timing"): from submission, except
    # a back-to-back loop's request submitted before the previous one ended: from that end.
    back_to_back = arrival["arrival"] == "closed" and arrival["depth"] > 1
    if arrival["arrival"] != "closed" or arrival.get("think_ns"):
        arrival["evidence"] = ev
    return {"kernels": kernels, "service_ns": service, "arrival": arrival,
            "split": "per-kernel times" if own else "even per round",
            "launch_ns": int(round(launch_pace)), "fit_scale": 1.0,
            "requests": len(reqs), "replayed": len(main), "submits": subs, "other_shapes": len(reqs) - len(main),
            "latency_ms": [(x[1] if back_to_back else x[0]) / 1e6 for x in lat],
            "latency_submit": [x[2] for x in lat],
            # For alike clients (arrival_pool, think_pool): every think, gap and (latency, gap)
            # pair, whatever the form.
            "thinks": thinks, "gaps": gaps, "lg": lg,
            "first_submit": subs[0], "last_end": max(
                e for e in ends if e is not None), "dispatches": {
                k[0]: n * len(main) for k, n in grp}}


def arrival_of(think_loop, thinks, gaps, service):
    """The arrival of a client that is not a back-to-back loop: thinking after each answer
    (@think_loop: closed, depth 1) or open loop from its @gaps (ns)."""
    if think_loop:
        # The mean, not the median: the clients' mean cycles (think plus latency) decide how
        # their phases drift against each other, and so how often a held request meets a
        # high one. W2's thinks are uniform 20 +- 2 ms: over 30 requests the median strays
        # 0.36 ms (one standard deviation) where the mean strays 0.21, and a low client
        # replayed 0.74 ms faster than its peers swept through their phases (docs/replay.md
        # "The think time").
        think = statistics.fmean(thinks)
        # Uniform +- jitter with the thinks' spread (a uniform's deviation is J / sqrt(3)).
        return {"arrival": "closed", "depth": 1, "think_ns": int(think),
                "jitter_ns": int(min(think, statistics.pstdev(thinks) * math.sqrt(3)))}
    if not gaps:
        return {"arrival": "periodic", "period_ns": int(service * 10)}
    mean = statistics.fmean(gaps)
    cv = statistics.pstdev(gaps) / mean if mean else 0
    if cv >= 0.25:
        return {"arrival": "poisson", "rate": 1e9 / mean}
    # The mean gap (the client's rate, as for a think) and the gaps' spread as a uniform
    # jitter (the runner's periodic jitter: each gap the period +- J, a uniform's deviation
    # J / sqrt(3)), where it is more than a timer's noise (1 % of the period). Strictly
    # periodic, a client whose gaps wandered 20 +- 2 ms would lock its phase against the
    # others' and meet them every time or never.
    jitter = min(mean / 2, statistics.pstdev(gaps) * math.sqrt(3))
    arrival = {"arrival": "periodic", "period_ns": int(mean)}
    if jitter >= 0.01 * mean:
        arrival["jitter_ns"] = int(jitter)
    return arrival


def think_evidence(subs, ends):
    """Whether a queue's client thinks after each answer (closed loop, depth 1) or submits on
    its own clock (open loop), from its submissions and ends (ns; an end may be None).

    Each gap between submissions is the request's latency plus what followed it. A client that
    thinks after the answer makes its gap grow with the latency (slope 1 of gap on latency); an
    open-loop one does not (slope 0): the slope decides, at one half, as its standard error
    allows. Two things overrule it: a client that submitted before its last answer more than
    once in fifty (by more than THINK_EARLY_NS, a clock's error) was not waiting for it; and
    where the latency hardly varied (the slope's standard error above 1: the recording cannot
    tell the two forms apart) the open loop, which under a scheduler that holds the queue keeps
    submitting, the pessimistic answer for its latency. Returns slope, se, early, decided
    (the slope at least two standard errors from one half), think_loop, the thinks (ns) and
    lg, the (latency, gap) pairs."""
    pairs = [(e - s0, s1 - s0, s1 - e) for s0, s1, e in zip(subs, subs[1:], ends)
             if e is not None and s1 > s0]
    early = sum(1 for _, _, th in pairs if th < -THINK_EARLY_NS)
    thinks = [max(0.0, th) for _, _, th in pairs]
    ev = {"pairs": len(pairs), "early": early, "slope": None, "se": None, "decided": False,
          "think_loop": False, "thinks": thinks, "lg": [(p[0], p[1]) for p in pairs]}
    fit = gap_slope([ev["lg"]]) if len(pairs) >= 3 else None
    if not fit:
        return ev
    slope, se = fit
    ev.update({"slope": round(slope, 3), "se": round(se, 3), "decided": abs(slope - 0.5) >= 2 * se})
    ev["think_loop"] = early <= len(pairs) // 50 and se <= 1.0 and slope >= 0.5
    return ev


def gap_slope(clients):
    """The slope of gap on latency and its standard error over @clients, each a list of
    (latency, gap) pairs taken about its own means (the clients' latencies differ with their
    priorities; only how each one's gap follows its own latency is the evidence), or None
    when no latency varied."""
    dev = []
    for lg in clients:
        ml = statistics.fmean(x for x, _ in lg)
        mg = statistics.fmean(y for _, y in lg)
        dev += [(x - ml, y - mg) for x, y in lg]
    sxx = sum(x * x for x, _ in dev)
    if sxx <= 0:
        return None
    slope = sum(x * y for x, y in dev) / sxx
    resid = sum((y - slope * x) ** 2 for x, y in dev)
    return slope, math.sqrt(resid / max(1, len(dev) - len(clients) - 1) / sxx)


def alike(clients, values):
    """@clients in groups that the recording cannot tell apart by @values(client) (ns): in
    the order of their means, a client joins the group before it while every member's mean
    stays within THINK_POOL_Z standard errors (the group's spread over the member's count)
    of the group's mean."""
    def fits(group):
        allv = [v for q in group for v in values(q)]
        m, sd = statistics.fmean(allv), statistics.pstdev(allv)
        return all(abs(statistics.fmean(values(q)) - m) <= THINK_POOL_Z * sd / math.sqrt(len(values(q)))
                   for q in group)

    groups = []
    for q in sorted((q for q in clients if len(values(q)) > 2), key=lambda q: statistics.fmean(values(q))):
        if groups and fits(groups[-1] + [q]):
            groups[-1].append(q)
        else:
            groups.append([q])
    return groups


def arrival_pool(qs):
    """Decides the arrival form of clients that think alike together, where each one's own
    evidence (think_evidence) does not decide it.

    Thirty requests seldom tell a thinking client from an open loop (the slope of gap on
    latency has a standard error of 0.2-0.9 for W2's clients), and one of six came out open
    loop by chance in about one recording in two; replayed periodic, it kept submitting while
    held, which the live client never did. Clients whose thinks (next submission minus last
    answer) the recording cannot tell apart (alike()) are taken together: the slope of all
    their pairs, each client's latencies and gaps about its own means, has a standard error
    about the square root of their number smaller. Where that decides, every member whose own
    evidence did not takes the group's form (a client that submitted before its answer never
    becomes a thinking one); evidence["group"] says what the group's slope was."""
    cands = [q for q in qs if (q["arrival"].get("evidence") or {}).get("slope") is not None]
    for g in alike(cands, lambda q: q["thinks"]):
        if len(g) < 2:
            continue
        fit = gap_slope([q["lg"] for q in g])
        if not fit:
            continue
        slope, se = fit
        decided = abs(slope - 0.5) >= 2 * se
        think = slope >= 0.5
        for q in g:
            ev = q["arrival"]["evidence"]
            ev["group"] = {"clients": len(g), "slope": round(slope, 3), "se": round(se, 3), "decided": decided}
            if not decided or ev["decided"] or (think and ev["early"] > ev["pairs"] // 50):
                continue
            if bool(q["arrival"].get("think_ns")) != think:
                q["arrival"] = dict(arrival_of(think, q["thinks"], q["gaps"], q["service_ns"]),
                                    evidence=ev)
                ev["form_from_group"] = True


def think_pool(qs):
    """Gives thinking clients that the recording cannot tell apart (alike()) one think time:
    each the mean and spread of all their thinks together.

    Closed-loop clients drift against each other by the difference of their mean cycles, and
    how often a held request meets a higher one follows from that drift. Clients thinking alike
    (W2's six: 20 +- 2 ms each) fitted one by one from thirty thinks differ by a few tenths of
    a millisecond of sampling noise, and the replay made them sweep through each other's phases
    where the live clients did not: replayed with the true 20 +- 2 ms, W2's held streams waited
    as often as live, run by run (docs/replay.md "The think time"). A group of two or more
    thinks its pooled mean +- its pooled spread; each keeps its own fit in arrival["own"], and
    arrival["pooled_with"] names the group."""
    for g in alike([q for q in qs if q["arrival"].get("think_ns")], lambda q: q["thinks"]):
        if len(g) < 2:
            continue
        allt = [t for q in g for t in q["thinks"]]
        m, sd = statistics.fmean(allt), statistics.pstdev(allt)
        for q in g:
            a = q["arrival"]
            a["own"] = {"think_ns": a["think_ns"], "jitter_ns": a["jitter_ns"]}
            a["think_ns"], a["jitter_ns"] = int(m), int(min(m, sd * math.sqrt(3)))
            a["pooled_with"] = [x["name"] for x in g if x is not q]


def kernel_split(main, grp, launch_ns):
    """Each kernel group's GPU time (ns, all its kernels), from the requests' per-kernel times,
    or None when fewer than half of @main have a time for every kernel (a recording before
    format 5, above level 0, or one whose recorder ran out of signals).

    A kernel's own time is its end minus its start and the launch the model adds, or, when it
    started before the previous kernel of the request ended (no barrier bit: the packet
    processor launches it while the last workgroups of the one before still run), its end minus
    that end. Per position in the request, the 10th percentile over the requests (the least
    disturbed, as the service time). Not scaled to the service time: a request launched kernel
    by kernel takes longer than its kernels (they wait for their launches, which the replay
    reproduces with launch=), and spreading the service time over its kernels would give them
    GPU time they did not take, which a queue held and then released competes with."""
    full = [r["ktimes"] for r in main
            if len(r["ktimes"]) == len(r["kernels"]) and all(r["ktimes"])]
    if not full or len(full) < len(main) / 2:
        return None
    per_pos = []
    for j in range(len(full[0])):
        own = []
        for kt in full:
            start, end = kt[j]
            if j and start < kt[j - 1][1]:
                own.append(max(0.0, float(end - kt[j - 1][1])))
            else:
                own.append(max(0.0, float(end - start) - launch_ns))
        per_pos.append(pct(own, 10))
    if sum(per_pos) <= 0:
        return None
    out, j = [], 0
    for _, n in grp:
        out.append(sum(per_pos[j:j + n]))
        j += n
    return out


def plan(procs, launch_ns=5000, measure_from="start"):
    """The whole replay: per process, per queue, what queue_plan says."""
    out = []
    for pid, p in sorted(procs.items()):
        qs = []
        for qid, q in sorted(p["queues"].items()):
            qp = queue_plan(q, launch_ns) if q.get("requests") is not None else None
            if qp:
                qp.update({"queue": qid, "recorded_dispatches": q.get("recorded_dispatches", {}), "name": q["name"], "prio": PRIO.get(q["prio"] or "normal",
                                                                               "normal")})
                qs.append(qp)
        if qs:
            out.append({"pid": pid, "comm": p["comm"], "file": p["file"], "torn": p["torn"],
                        "queues": qs})
    if not out:
        raise ReplayError("no queue of the recordings has a request with an end time to replay")
    # The recorded figures the replay is compared with (and fitted to) are those of its
    # measurement window (window()).
    t0, warmup = window(out, measure_from)
    for p in out:
        for q in p["queues"]:
            if "kernels" in q:
                q["window_from"] = t0 + warmup
                q["latency_ms"] = [l for l, s in zip(q["latency_ms"], q["latency_submit"])
                                   if s >= t0 + warmup] or q["latency_ms"]
                # A task with a request count counts every request it makes, warm-up or not
                # (docs/experiments.md "Timing"): with a warm-up, it makes those of the window.
                inwin = [s for s in q["submits"] if s >= t0 + warmup]
                q["window_first"] = inwin[0] if inwin and warmup else q["first_submit"]
                q["window_requests"] = len(inwin) if inwin and warmup else q["replayed"]
    # Roles: an open-loop queue serves (online), a closed loop computes (offline). A recording
    # made without stream priorities (all one) gets them from the roles: online high, offline
    # low, what a deployment would ask of hsaqm; one with priorities keeps them.
    qs = [q for p in out for q in p["queues"] if "kernels" in q]
    arrival_pool(qs)
    think_pool(qs)
    for q in qs:
        q["role"] = "online" if q["arrival"]["arrival"] in ("periodic", "poisson") or \
            q["arrival"].get("think_ns") else "offline"
    if len({q["prio"] for q in qs}) == 1:
        for q in qs:
            q["prio"] = "high" if q["role"] == "online" else "low"
            q["prio_from"] = "role"
    return out


def ident(text):
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text)[:40] or "x"


def window(pl, measure_from="start"):
    """(t0, warm-up) in the timestamp domain's ns: the replay starts at t0, the first replayed
    queue's first submission, and measures from there (@measure_from "start": every recorded
    request counts) or from when every replayed queue has started ("all-started"): before that
    the recording holds another workload, as when a serving process was recorded alone before
    the batch job started, which is how a recording shows the serving queue's own kernel times
    (docs/replay.md "Fitting the kernel times"). Whole milliseconds. Not the default: a program
    whose runtime creates a queue late (HIP makes them as streams first launch) would lose the
    requests before it."""
    firsts = [q["first_submit"] for p in pl for q in p["queues"] if "kernels" in q]
    if measure_from != "all-started":
        return min(firsts), 0
    return min(firsts), math.floor((max(firsts) - min(firsts)) / 1e6) * 1e6


def write_wl(pl, path, name, configs_text):
    """The workload file for @pl (hsaqm-wl's syntax, docs/experiments.md)."""
    t0 = min(q["first_submit"] for p in pl for q in p["queues"] if "kernels" in q)
    warmup = min(q["window_from"] for p in pl for q in p["queues"] if "kernels" in q) - t0
    # Up to the last submission (and 2 % more, for fitted arrivals that come a little later):
    # after it the recording only drains what was in flight (a runner's live window ends there,
    # and its requests in flight complete after it). Measured to the last end instead, a closed
    # loop's throughput was averaged over a longer stretch than the live run's, over which its
    # first long request (500 ms in W1 intensive) weighs less: +5 to +8 %.
    t1 = max(q["submits"][-1] for p in pl for q in p["queues"] if "kernels" in q)
    length = max(1e9, 1.02 * (t1 - t0 - warmup))
    lines = ["# Made by hsaqm-experiment --replay from %s (docs/replay.md). MODEL FIGURES: the"
             % ", ".join(sorted({p["file"] for p in pl})),
             "# kernel times below are estimated from the recording's dispatch times (replay.py).",
             "", "[workload]", "name = %s" % name,
             "description = replay of %s" % ", ".join("%s (pid %d)" % (p["comm"], p["pid"]) for p in pl),
             "length = %dms" % int(math.ceil(length / 1e6)), "warmup = %dms" % int(warmup / 1e6),
             "seed = 1", "time_scale = 1", ""]
    nmodels = 0
    for p in pl:
        for q in p["queues"]:
            if "kernels" not in q:
                continue
            nmodels += 1
            if nmodels > 16:
                raise ReplayError("more than 16 queues with work: the workload form holds 16 models")
            q["model"] = "m%d-q%d" % (p["pid"], q["queue"])
            if len(q["kernels"]) > 64:
                raise ReplayError("queue %s of pid %d: a request of %d kernel groups (at most 64)"
                                  % (q["name"], p["pid"], len(q["kernels"])))
            lines += ["[model %s]" % q["model"], "batch = 1",
                      "note = replayed: service %.1f us, %d requests of this shape"
                      % (q["service_ns"] / 1e3, q["replayed"])]
            if q["fit_scale"] != 1.0:
                lines.append("# kernel times x %.4f: fitted so the native replay's P50 matches the "
                             "recording's (fit_scale)" % q["fit_scale"])
            for k in q["kernels"]:
                lines += ["# %s" % k["kobj"],
                          "kernel = count=%d wg=%d waves=%d time=%dns" % (
                              k["count"], k["wg"], k["waves"],
                              max(1000, int(round(k["time_ns"] * q["fit_scale"]))))]
            lines.append("")
    # A workload process per recorded process and role: a process with both serving and batch
    # queues becomes two (the report compares roles; the hsaqm configurations then schedule
    # them as two processes).
    for p in pl:
        roles = sorted({q["role"] for q in p["queues"] if "kernels" in q}, reverse=True)
        for role in roles:
            wname = "%s-%d%s" % (ident(p["comm"])[:20], p["pid"], "-" + role if len(roles) > 1 else "")
            lines += ["[process %s]" % wname, "role = %s" % role]
            mine = [q for q in p["queues"] if "kernels" in q and q["role"] == role]
            for q in mine:
                q["wl_process"] = wname
                lines.append("stream = name=q%d priority=%s" % (q["queue"], q["prio"]))
            for q in mine:
                a = q["arrival"]
                counted = a["arrival"] != "closed" or a.get("think_ns")
                start = max(0, int((q["window_first"] if counted else q["first_submit"]) - t0))
                task = "task = name=q%d stream=q%d model=%s start=%dns " % (
                    q["queue"], q["queue"], q["model"], start)
                if a["arrival"] == "closed":
                    task += "arrival=closed depth=%d" % a["depth"]
                    if a.get("think_ns"):
                        task += " think=%dns jitter=%dns requests=%d" % (a["think_ns"], a["jitter_ns"],
                                                                         q["window_requests"])
                elif a["arrival"] == "periodic":
                    task += "arrival=periodic period=%dns" % a["period_ns"]
                    if a.get("jitter_ns"):
                        task += " jitter=%dns" % a["jitter_ns"]
                else:
                    task += "arrival=poisson rate=%.6g" % a["rate"]
                if a["arrival"] != "closed":
                    # As many requests as were recorded in the window (an open loop's count
                    # is its input).
                    task += " requests=%d" % q["window_requests"]
                if q["launch_ns"]:
                    task += " launch=%dns" % q["launch_ns"]
                lines.append(task)
            lines.append("")
    lines.append(configs_text)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# The configurations of the experiments (w1-light.wl, w2.wl): native, HIP priority, hsaqm at
# each level, and the two spatial ones.
CONFIGS = """[config native]
mode = native
label = Native
[config hip]
mode = hip-priority
label = HIP priority
[config lv1]
mode = hsaqm
label = Lv1
level = 1
lv1_threshold = 16
lv1_batch = 8
[config lv2]
mode = hsaqm
label = Lv2
level = 2
lv2_interval = 1
[config lv3]
mode = hsaqm
label = Lv3
level = 3
[config lv2-static]
mode = hsaqm
label = Lv2 + static CUs
level = 2
lv2_interval = 1
spatial = static:250
[config lv2-dynamic]
mode = hsaqm
label = Lv2 + dynamic CUs
level = 2
lv2_interval = 1
spatial = dynamic:250
"""

LIMITS = ("What the replay does not model (MODEL FIGURES): caches, memory bandwidth and power "
          "(CUs share nothing in the model, so co-running kernels do not slow each other as on "
          "a GPU); a kernel's time varying from one request to the next (each kernel of a request "
          "takes its share of the least disturbed requests' time, divided as the kernels' own "
          "times divide; without per-kernel times, a recording above level 0 or before format "
          "5, equally per round of workgroups but for the signalled kernels: replay.json's "
          "split); "
          "dependencies between queues (barrier packets) and host-side gaps inside a request "
          "other than an even launch pace; kernel times fitted to the native recording where its "
          "latency depends on them (replay.json's fit), else the recording's estimate; "
          "queues whose requests have other shapes than their most frequent one (counted above); "
          "arrivals are fitted (periodic, Poisson or closed loop), not the recorded instants.")


THINK_POOL_Z = 3.0  # clients whose mean thinks are within this many standard errors think alike
THINK_EARLY_NS = 50000  # a submission this far before the last answer is a clock's error, not early
FIT_TOLERANCE = 0.03  # a fitted queue's replayed native P50 within 3 % of its recorded one
FIT_ELASTICITY = 0.2  # below: the queue's native latency does not tell its kernel times


def fit_targets(pl):
    """Per replayed queue, the recorded P50 latency (ms) the native replay is fitted to."""
    return {(p["pid"], q["queue"]): pct(q["latency_ms"], 50)
            for p in pl for q in p["queues"] if "kernels" in q}


def fit_error(l50, want):
    """The relative error of a native replay's P50 @l50 against the recorded @want: the figure
    the fit steps on, stops on and keeps its best run by."""
    return abs(l50 - want) / want


def fit_step(pl, history):
    """One step of the fit of the kernel times (docs/replay.md "Fitting the kernel times").

    @history: per (pid, queue), the list of (fit_scale, replayed native P50 ms) of the runs so
    far, the last one being the current scale's. Sets each queue's next fit_scale: by the
    secant through its last two runs where they moved its latency, else in proportion (the
    first step). A step is at most x3 or /3. A queue whose latency hardly moved with its times
    (elasticity below FIT_ELASTICITY) is marked fit_undetermined and keeps its scale.
    Returns the largest relative error of the current runs among the queues still fitted."""
    targets = fit_targets(pl)
    worst = 0.0
    for p in pl:
        for q in p["queues"]:
            key = (p["pid"], q["queue"])
            if key not in history or not history[key] or not targets.get(key):
                continue
            want = targets[key]
            s1, l1 = history[key][-1]
            if not l1 or q.get("fit_undetermined"):
                continue
            err = fit_error(l1, want)
            if err <= FIT_TOLERANCE:
                continue  # fitted: stays (a step could only add noise)
            nxt = s1 * want / l1
            if len(history[key]) > 1:
                s0, l0 = history[key][-2]
                if s1 != s0 and l0:
                    # Elasticity: the relative change of the latency per relative change of
                    # the times. Below FIT_ELASTICITY the latency is the waiting behind other
                    # queues (W1 intensive's serving queue waits for the offline kernels'
                    # workgroups to end, whatever its own kernels take): the native runs do
                    # not determine this queue's times, and following the error would set
                    # them from noise. The queue keeps its scale and is said to be undetermined.
                    e = ((l1 - l0) / l1) / ((s1 - s0) / s1)
                    q["fit_elasticity"] = e
                    if e < FIT_ELASTICITY:
                        q["fit_undetermined"] = True
                        continue
                    nxt = s1 + (want - l1) * (s1 - s0) / (l1 - l0)
            worst = max(worst, err)
            q["fit_scale"] = min(s1 * 3, max(s1 / 3, nxt))
    return worst
