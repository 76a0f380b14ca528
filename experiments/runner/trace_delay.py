#!/usr/bin/env python3
"""trace_delay.py - preemption delays per online request, from a device-model trace.

Reads a Perfetto/Chrome trace written by the device model (hsaqm-simd --trace, docs/sim.md
"Trace") and, optionally, hsaqm-wl result JSON files written with --request-log. For every
online request in the trace it reports, in model time:

  sub      the request's submission (request log: the model clock read before its first
           packet; without a log: the launch of its first dispatch, see below)
  launch   sub -> the hardware queue launched its first dispatch: host time in the online
           process (the tool's doorbell wrapper, lib's release, the hardware doorbell) and the
           device process's handling of that doorbell; the trace cannot split them
  susp     sub -> the DBG_TRAP suspend of the offline queue reached the device (the "suspend"
           instant on the offline queue's packet track): the cross-process host path, i.e. the
           online mark, hsaqmd's decision, the offline process's callback and its ioctl
  saved    suspend -> the offline queue's preemption ended (HWS "preempt" span: grace, CWSR save
           of waves_saved, unmap)
  wg       sub -> the online request's first workgroup started
  lat      sub -> the request's last dispatch completed (the request's latency when sub is known)
  resume   last online completion -> the offline queue's "resume" instant (offline time lost)
  cause    what dominates the request's delay: "own-launch" (sub -> launch > --late-us: the online
           process's own path to its hardware queue was late), "suspend-path" (else, sub -> suspend
           > --late-us + launch: the cross-process path was late), "-" otherwise
  how      "boundary": the first online workgroup started before the suspend (in a slot freed at
           an offline workgroup boundary); "after-save": it started after the offline waves were
           saved; "no-suspend": no suspend of the offline queue during the request

The trace has no instant for the application's doorbell or submission: without --request-log
results, "sub" is the first dispatch's launch and "launch" is 0 (the latency then misses the
online process's own launch time). Request logs: `hsaqm-wl ... --request-log` writes every
request as [planned, submitted, last launch, completed] in absolute model ms, the trace's clock
(hsaqm-experiment passes it for files with edge_checks and for traced runs, whose merged result
JSON, e.g. trace-lv3.json, then goes to --log). --window-ms takes the same absolute model ms (a log's t_start_ms + warm-up). Requests are the online
queue's dispatches grouped by the request log's [submitted, completed] intervals, or, without a
log, by idle gaps longer than --gap-ms.

MODEL FIGURES: every time here is the model's (docs/experiments.md). Standard library only.

usage: experiments/runner/trace_delay.py TRACE.json [--log RESULT.json ...]
       [--online-queue N] [--offline-queue N] [--gap-ms 1] [--standalone-ms MS] [--late-us 300]
       [--window-ms LO:HI] [--top 10] [--json OUT.json] [--md OUT.md]
"""
import argparse
import bisect
import json
import re
import sys


def pct(xs, p):
    """Nearest-rank percentile, as hsaqm-wl computes its own."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(1, -(-len(s) * p // 100))
    return s[int(k) - 1]


def load_trace(path):
    ev = json.load(open(path))
    names = {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    disp, wgs, inst, hws = [], [], [], []
    for e in ev:
        ph = e.get("ph")
        track = names.get((e.get("pid"), e.get("tid")), "")
        if ph == "X" and track == "dispatches":
            disp.append((e["ts"], e["ts"] + e["dur"], e["args"]["queue"], e["args"]["packet"],
                         e["name"]))
        elif ph == "X" and track == "workgroups":
            wgs.append((e["ts"], e["args"]["queue"], e["args"]["dispatch"], e["name"]))
        elif ph == "i":
            m = re.match(r"queue (\d+) packets", track)
            if m:
                inst.append((e["ts"], int(m.group(1)), e["name"]))
        elif ph == "X":
            m = re.match(r"queue (\d+) HWS", track)
            if m:
                hws.append((e["ts"], e["ts"] + e["dur"], int(m.group(1)), e["name"],
                            e.get("args", {})))
    return disp, wgs, inst, hws


def load_logs(paths):
    """Every logged request of every online process: (submitted_us, completed_us) in model us."""
    reqs = []
    for p in paths:
        d = json.load(open(p))
        for pr in d.get("processes", []):
            if pr.get("role") != "online":
                continue
            for t in pr.get("tasks", []):
                for planned, sub, launch, end in t.get("log", []):
                    if end is not None:
                        reqs.append((sub * 1e3, end * 1e3))
    return sorted(reqs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--log", action="append", default=[], help="hsaqm-wl JSON with --request-log")
    ap.add_argument("--online-queue", type=int, help="model queue index of the online queue")
    ap.add_argument("--offline-queue", type=int, help="model queue index of the offline queue")
    ap.add_argument("--gap-ms", type=float, default=1.0, help="idle gap between requests (no log)")
    ap.add_argument("--standalone-ms", type=float,
                    help="standalone latency (e.g. its P50) for the excess column")
    ap.add_argument("--late-us", type=float, default=300.0, help="threshold of the cause column")
    ap.add_argument("--window-ms",
                    help="LO:HI - only requests submitted in [LO, HI) absolute model ms")
    ap.add_argument("--top", type=int, default=10, help="slowest requests to list")
    ap.add_argument("--json", help="write the per-request rows and the distribution here")
    ap.add_argument("--md", help="write a Markdown summary here")
    a = ap.parse_args()

    disp, wgs, inst, hws = load_trace(a.trace)
    susp_q = {q for _, q, n in inst if n == "suspend"}
    queues = sorted({q for _, _, q, _, _ in disp})
    off = a.offline_queue
    if off is None and len(susp_q) == 1:
        off = min(susp_q)
    on = a.online_queue
    if on is None:
        rest = [q for q in queues if q != off]
        on = rest[0] if len(rest) == 1 else None
    if on is None or off is None:
        sys.exit("trace_delay: cannot tell the online and offline queues apart (queues %s, "
                 "suspended %s): give --online-queue and --offline-queue"
                 % (queues, sorted(susp_q)))

    od = sorted(d for d in disp if d[2] == on)
    owg = sorted(w[0] for w in wgs if w[1] == on)
    susp = sorted(t for t, q, n in inst if q == off and n == "suspend")
    resm = sorted(t for t, q, n in inst if q == off and n == "resume")
    pre = sorted((s, e, args.get("waves_saved", 0)) for s, e, q, n, args in hws
                 if q == off and n == "preempt")
    t_lo = min(min(d[0] for d in disp), min(w[0] for w in wgs))
    t_hi = max(d[1] for d in disp)

    logged = load_logs(a.log)
    groups = []
    if logged:
        starts = [d[0] for d in od]
        for sub, end in logged:
            if sub < t_lo or end > t_hi:
                continue  # outside the traced window
            i, j = bisect.bisect_left(starts, sub), bisect.bisect_right(starts, end)
            if i < j:
                groups.append((sub, end, od[i:j]))
    else:
        cur = []
        for d in od:
            if cur and d[0] - max(x[1] for x in cur) > a.gap_ms * 1e3:
                groups.append((cur[0][0], max(x[1] for x in cur), cur))
                cur = []
            cur.append(d)
        if cur:
            groups.append((cur[0][0], max(x[1] for x in cur), cur))
        # The first and last groups may be cut by the trace's start and end.
        groups = [g for g in groups if g[0] > t_lo + 1 and g[1] < t_hi - 1]

    rows = []
    prev_end = float("-inf")
    for sub, end, ds in groups:
        first_launch = ds[0][0]
        last_end = max(x[1] for x in ds)
        k = bisect.bisect_left(owg, sub)
        wg = owg[k] if k < len(owg) else None
        # The suspend this request caused: the first one after the previous request ended and
        # before this one's end (without a log it may come before the first launch: negative).
        k = bisect.bisect_right(susp, prev_end)
        s = susp[k] if k < len(susp) and susp[k] <= last_end else None
        prev_end = last_end
        p = next((x for x in pre if s is not None and x[0] >= s - 1e-3), None)
        k = bisect.bisect_left(resm, last_end - 1e-3)
        r = resm[k] if k < len(resm) else None
        if a.window_ms:
            w_lo, w_hi = (float(x) * 1e3 for x in a.window_ms.split(":"))
            if not w_lo <= sub < w_hi:
                continue
        launch = first_launch - sub
        cause = ("own-launch" if launch > a.late_us else
                 "suspend-path" if s is not None and s - sub > a.late_us + launch else "-")
        how = ("no-suspend" if s is None else
               "boundary" if wg is not None and wg < s else "after-save")
        rows.append({
            "sub_us": round(sub, 3), "launch_us": round(first_launch - sub, 3),
            "susp_us": None if s is None else round(s - sub, 3),
            "saved_us": None if p is None else round(p[1] - s, 3),
            "waves_saved": None if p is None else p[2],
            "wg_us": None if wg is None else round(wg - sub, 3),
            "lat_us": round(last_end - sub, 3),
            "excess_us": (round(last_end - sub - a.standalone_ms * 1e3, 3)
                          if a.standalone_ms else None),
            "resume_us": None if r is None else round(r - last_end, 3),
            "how": how, "cause": cause, "dispatches": len(ds),
            "log_end_err_us": round(end - last_end, 3) if logged else None,
        })
    if not rows:
        sys.exit("trace_delay: no complete online request in the trace")

    cols = [("launch_us", "sub -> first dispatch launched"),
            ("susp_us", "sub -> offline suspend at the device"),
            ("saved_us", "suspend -> offline preemption done"),
            ("wg_us", "sub -> first online workgroup"),
            ("lat_us", "sub -> last online completion (latency)"),
            ("excess_us", "latency - standalone"),
            ("resume_us", "last online completion -> offline resume")]
    dist = {}
    for key, _ in cols:
        xs = [r[key] for r in rows if r[key] is not None]
        dist[key] = {"n": len(xs), "min": min(xs) if xs else None, "p50": pct(xs, 50),
                     "p90": pct(xs, 90), "p99": pct(xs, 99), "max": max(xs) if xs else None}
    hows = {h: sum(1 for r in rows if r["how"] == h) for h in ("boundary", "after-save", "no-suspend")}

    out = []
    src = ("submission times from the request log" if logged else
           "NO request log: 'sub' is the first dispatch's launch")
    out.append("Online queue %d, offline queue %d; %d online requests in the trace (%s). "
               "MODEL FIGURES, us of model time." % (on, off, len(rows), src))
    if logged:
        errs = [abs(r["log_end_err_us"]) for r in rows]
        out.append("Clock check: request log completion vs last dispatch end in the trace, "
                   "max |diff| %.3f us." % max(errs))
    out.append("")
    out.append("| delay (us) | n | min | P50 | P90 | P99 | max |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for key, label in cols:
        d = dist[key]
        if d["n"]:
            out.append("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |"
                       % (label, d["n"], d["min"], d["p50"], d["p90"], d["p99"], d["max"]))
    out.append("")
    out.append("First online workgroup: before the suspend (offline workgroup boundary) %d, "
               "after the save %d; no suspend during the request %d."
               % (hows["boundary"], hows["after-save"], hows["no-suspend"]))

    def worst(cause):
        lats = sorted((r["lat_us"] for r in rows if r["cause"] == cause), reverse=True)
        return len(lats), "/".join("%.0f" % x for x in lats[:8]) or "-"
    out.append("Late (> %g us): the online process's own launch %d requests (slowest latencies %s us), "
               "the cross-process suspend path %d (%s us)."
               % ((a.late_us,) + worst("own-launch") + worst("suspend-path")))
    out.append("")
    out.append("Slowest %d requests by latency:" % min(a.top, len(rows)))
    out.append("")
    out.append("| sub (ms) | latency | excess | sub->launch | sub->suspend | save | sub->first WG "
               "| ->resume | first WG | cause |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")

    def f(x):
        return "-" if x is None else "%.1f" % x
    for r in sorted(rows, key=lambda r: -r["lat_us"])[:a.top]:
        out.append("| %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["sub_us"] / 1e3, f(r["lat_us"]), f(r["excess_us"]), f(r["launch_us"]),
            f(r["susp_us"]), f(r["saved_us"]), f(r["wg_us"]), f(r["resume_us"]), r["how"],
            r["cause"]))
    text = "\n".join(out)
    print(text)
    if a.md:
        open(a.md, "w").write(text + "\n")
    if a.json:
        json.dump({"trace": a.trace, "logs": a.log, "online_queue": on, "offline_queue": off,
                   "model_figures": True, "distribution_us": dist, "first_wg": hows, "requests": rows},
                  open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
