# SPDX-License-Identifier: MIT
"""replay-validate.py - does a replay predict what the live run does? (issue 26 item 3,
docs/replay.md "Validation"). MODEL FIGURES only: everything here runs on the device model.

Per workload file and run:
  live    hsaqm-experiment FILE --configs C --record DIR --time-scale X --no-standalone: every
          configuration live; the native run's processes recorded (hsaqm-run --record,
          pass-through), so the native live run is the recorded run;
  replay  hsaqm-experiment --replay DIR/*.rec --configs C --time-scale X: the recordings as a
          workload, run under the same configurations;
  compare per live process (or, in a process with several task groups, per group, as W2's
          priorities) and configuration: an open-loop or thinking client's P50 and P99
          (replayed against live), a closed loop's throughput; a group's replayed figure is
          that of its recorded queues together (latencies pooled, rates added), as the live
          run reports it.
--tabulate compares the runs an earlier call left in --out without running anything.

With --assert, exit 1 when an error is outside --p50-tol / --p99-tol / --tput-tol (fractions),
exit 3 when no figure could be judged (the host late in every configuration),
after printing the whole table. Exit 2 on a bad argument or a run that failed.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXP = os.path.join(SRC, "experiments", "runner", "hsaqm-experiment")
sys.path.insert(0, os.path.dirname(EXP))
from replay import pct  # noqa: E402  nearest rank, as the runner's figures (hsaqm_wl.c pct)


def proc_of(res, name, group=None):
    p = next((x for x in res.get("processes", []) if x["name"] == name), None)
    if p and group and len(p.get("groups") or []) > 1:
        p = next((g for g in p["groups"] if g["name"] == group), p)
    return p


def run(cmd, log):
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc:
        with open(log) as f:
            tail = f.read().strip().splitlines()[-5:]
        sys.exit("replay-validate: %s exited %d (log %s):\n  %s" % (" ".join(cmd[:4]), rc, log,
                                                                     "\n  ".join(tail)))
    return time.time() - t0


def serve_first(wlfile, out, build):
    """A copy of @wlfile in folder @out whose offline processes' tasks start at the file's
    warm-up: the serving process runs alone until the live measurement starts, so the recording
    holds requests that show its own kernel times, and both runs measure the same stretch (the
    replay measures from when every recorded queue has started). Returns the copy's path."""
    lines, role = [], None
    with open(wlfile) as f:
        text = f.read().splitlines()
    # The warm-up as hsaqm-wl reads it (its --dump), not parsed again here.
    warmup_ns = int(round(json.loads(subprocess.run(
        [os.path.join(build, "experiments", "runner", "hsaqm-wl"), wlfile, "--dump"],
        capture_output=True, text=True, check=True).stdout)["warmup_s"] * 1e9))
    warmup = "%dns" % warmup_ns
    if not warmup_ns:
        sys.exit("replay-validate: --serve-first: %s has no warm-up to serve alone in" % wlfile)
    for ln in text:
        st = ln.strip()
        if st.startswith("["):
            role = None
        elif st.replace(" ", "").startswith("role=offline"):
            role = "offline"
        elif role == "offline" and st.startswith("task"):
            ln = ln.split("#")[0].rstrip() + " start=" + warmup
        lines.append(ln)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, os.path.basename(wlfile))
    with open(path, "w") as f:
        f.write("# replay-validate --serve-first: %s with its offline tasks started at the warm-up (%s)\n"
                % (wlfile, warmup) + "\n".join(lines) + "\n")
    return path


def one(args, wlfile, i, base):
    """One live run and one replay of @wlfile (none with --tabulate: those already in @base):
    compare()'s rows."""
    name = os.path.splitext(os.path.basename(wlfile))[0]
    d = os.path.join(base, "%s-run%d" % (name, i))
    if args.tabulate:
        if not glob.glob(os.path.join(d, "replay", "replay-*", "replay.json")):
            sys.exit("replay-validate: --tabulate: no run in %s" % d)
        if args.serve_first:
            wlfile = os.path.join(d, os.path.basename(wlfile))
        return compare(args, wlfile, d)
    rec = os.path.join(d, "rec")
    os.makedirs(rec, exist_ok=True)
    if args.serve_first:
        wlfile = serve_first(wlfile, d, args.build)
    common = ["--build", args.build, "--configs", args.configs, "--no-png", "--no-progress"]
    if args.time_scale:
        common += ["--time-scale", "%g" % args.time_scale]
    if args.seed is not None:
        common += ["--seed", str(args.seed + i - 1)]
    live_cmd = [args.python, EXP, wlfile, "--no-standalone", "--record", rec,
                "--record-config", args.record_config, "--out", os.path.join(d, "live")] + common
    if args.length:
        live_cmd += ["--length", args.length]
    w1 = run(live_cmd, os.path.join(d, "live.log"))
    recs = sorted(glob.glob(os.path.join(rec, "*.rec")))
    if not recs:
        sys.exit("replay-validate: the native run of %s recorded nothing in %s" % (wlfile, rec))
    # The replay at the live runs' scale: without --time-scale those are the file's, and the
    # replayed workload file says 1.
    rcommon = list(common)
    if not args.time_scale:
        native = glob.glob(os.path.join(d, "live", "*", "%s.json" % args.record_config))
        if native:
            rcommon += ["--time-scale", "%g" % json.load(open(native[0]))["time_scale"]]
    if args.serve_first:
        rcommon += ["--replay-measure-from", "all-started"]
    w2 = run([args.python, EXP, "--replay"] + recs + ["--out", os.path.join(d, "replay")] + rcommon,
             os.path.join(d, "replay.log"))
    print("run %d of %s: live %.0f s, replay %.0f s of wall time (%s)" % (i, name, w1, w2, d), flush=True)
    return compare(args, wlfile, d)


def pooled(res, pname, qgroups):
    """The replay's figures of the queues @qgroups of process @pname taken together, as the live
    run reports a task group of several streams (W2: two streams per priority): latencies
    pooled from the groups' CDFs (every request while a group has fewer than 200), rates
    added. None when a CDF is thinned (then no exact pooled percentile)."""
    p = proc_of(res, pname)
    gs = [g for g in (p or {}).get("groups") or [] if g["name"] in qgroups]
    if len(gs) != len(qgroups):
        return None
    if len(gs) == 1:
        return dict(gs[0], latencies=latencies(gs[0]))
    lat = []
    for g in gs:
        if latencies(g) is None:
            return None
        lat += latencies(g)
    return {"latency_p50_ms": pct(lat, 50), "latency_p99_ms": pct(lat, 99),
            "throughput_rps": sum(g["throughput_rps"] for g in gs), "latencies": lat,
            "arrival_late_max_ms": max(g.get("arrival_late_max_ms") or 0 for g in gs)}


def latencies(fig):
    """Every request's latency of a runner figure (process or group), or None when its CDF is
    thinned (200 points at most)."""
    cdf = fig.get("cdf_ms") or []
    return [x[0] for x in cdf] if fig.get("requests") and len(cdf) == fig["requests"] else None


def compare(args, wlfile, d):
    """Per live task group (or process) and configuration, its figures live and replayed: rows
    (queue, config, metric, live, replay, late, live latencies, replayed latencies); the
    latencies None where not every request's is known (a throughput, a thinned CDF)."""
    rj = glob.glob(os.path.join(d, "replay", "replay-*", "replay.json"))
    if len(rj) != 1:
        sys.exit("replay-validate: no replay.json under %s" % os.path.join(d, "replay"))
    queues = json.load(open(rj[0]))["queues"]
    name = os.path.splitext(os.path.basename(wlfile))[0]
    # A recorded queue's live task group: lib numbers a process's queues from 1 in creation
    # order, which is the file's stream order (streams made at set-up); the group is that of
    # the stream's first task.
    dump = json.loads(subprocess.run([os.path.join(args.build, "experiments", "runner", "hsaqm-wl"), wlfile,
                                      "--dump"], capture_output=True, text=True, check=True).stdout)
    stream_group = {}
    for p in dump["processes"]:
        for n, st in enumerate(p["streams"], 1):
            t = next((t for t in p["tasks"] if t["stream"] == st["name"]), None)
            stream_group[(p["name"], n)] = (t or {}).get("group") or st["name"]
    rows = []
    for c in args.configs.split(","):
        live = glob.glob(os.path.join(d, "live", "*", "%s.json" % c))
        rep = os.path.join(os.path.dirname(rj[0]), "%s.json" % c)
        if not live or not os.path.exists(rep):
            sys.exit("replay-validate: configuration %s did not run (under %s)" % (c, d))
        lres, rres = json.load(open(live[0])), json.load(open(rep))
        wlname = lres["workload"] if isinstance(lres.get("workload"), str) else name
        # The live figures are per task group: the replayed queues of one group are compared
        # together (W2's two streams per priority), not each against the pair's.
        units = {}
        for q in queues:
            # FILE is WORKLOAD-PROCESS.rec (hsaqm-experiment --record).
            stem = os.path.splitext(os.path.basename(q["file"]))[0]
            lp_name = stem[len(wlname) + 1:] if stem.startswith(wlname + "-") else stem
            group = stream_group.get((lp_name, q["queue_id"]))
            lp = proc_of(lres, lp_name, group)
            if not lp:
                sys.exit("replay-validate: %s: queue %s of %s not found in the live run"
                         % (c, q["queue"], q["file"]))
            u = units.setdefault((lp_name, group if lp is not proc_of(lres, lp_name) else None),
                                 {"lp": lp, "rp_name": q["workload_process"], "q": [], "arrival": q["arrival"]})
            u["q"].append(q["queue_id"])
        for (lp_name, group), u in units.items():
            rp = pooled(rres, u["rp_name"], ["q%d" % x for x in u["q"]])
            if rp is None and len(u["q"]) == 1:
                rp = proc_of(rres, u["rp_name"])
            if not rp:
                sys.exit("replay-validate: %s: queues %s of %s not found (or their CDFs thinned) in "
                         "the replay" % (c, u["q"], u["rp_name"]))
            lp = u["lp"]
            what = "%s/%s %s" % (lp_name, group, ",".join("q%d" % x for x in u["q"])) if group else lp_name
            late = (lp.get("arrival_late_max_ms"), rp.get("arrival_late_max_ms"))
            if u["arrival"]["arrival"] == "closed" and not u["arrival"].get("think_ns"):
                rows.append((what, c, "throughput_rps", lp["throughput_rps"], rp["throughput_rps"], late,
                             None, None))
            else:
                for m in ("latency_p50_ms", "latency_p99_ms"):
                    rows.append((what, c, m, lp[m], rp[m], late, latencies(lp),
                                 rp.get("latencies") or latencies(rp)))
    return rows


def err(live, rep):
    return (rep / live - 1.0) if live else float("inf")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="workload files (.wl)")
    ap.add_argument("--build", required=True, help="the meson build folder")
    ap.add_argument("--python", default=sys.executable, help="python3 for hsaqm-experiment")
    ap.add_argument("--configs", default="native,hip,lv1,lv2,lv3,lv2-static,lv2-dynamic")
    ap.add_argument("--time-scale", type=float, help="every run's time scale (model ns per wall ns)")
    ap.add_argument("--length", help="model time measured per live run (e.g. 6s)")
    ap.add_argument("--seed", type=int, help="seed of run 1 (run N: seed + N - 1); default the files'")
    ap.add_argument("--runs", type=int, default=1, help="live + replay pairs per file")
    ap.add_argument("--record-config", default="native",
                    help="the configuration recorded and replayed (default native; hip for a "
                    "workload whose program sets stream priorities, as W2)")
    ap.add_argument("--serve-first", action="store_true",
                    help="start the offline processes' tasks at the file's warm-up: the serving "
                    "process runs alone until the measurement starts (a recording that shows its "
                    "own kernel times; docs/replay.md \"Fitting the kernel times\")")
    ap.add_argument("--out", required=True, help="folder for every run's output")
    ap.add_argument("--md", help="also write the table (Markdown) here")
    ap.add_argument("--tabulate", action="store_true",
                    help="run nothing: compare the runs already in --out (as --runs, --configs say)")
    ap.add_argument("--assert", dest="check", action="store_true", help="fail outside the tolerances")
    ap.add_argument("--p50-tol", type=float, default=0.10)
    ap.add_argument("--p99-tol", type=float, default=0.10)
    ap.add_argument("--tput-tol", type=float, default=0.05)
    ap.add_argument("--p99-not-judged", metavar="CONFIGS",
                    help="configurations whose P99 is printed but not asserted: a level whose "
                    "reaction runs on the host (Lv1's progressive launching), whose P99 of a few "
                    "dozen requests is one host stall")
    ap.add_argument("--late-max", type=float, metavar="MS",
                    help="judge a P99 only when no online request of either run was submitted more "
                    "than MS of model time after its planned instant (default: judge every P99)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs %d: at least 1" % args.runs)
    for f in args.files:
        if not os.path.isfile(f):
            ap.error("%s: no such workload file" % f)
    os.makedirs(args.out, exist_ok=True)
    tol = {"latency_p50_ms": args.p50_tol, "latency_p99_ms": args.p99_tol, "throughput_rps": args.tput_tol}
    short = {"latency_p50_ms": "P50 ms", "latency_p99_ms": "P99 ms", "throughput_rps": "req/s"}
    table, lats = {}, {}
    for f in args.files:
        for i in range(1, args.runs + 1):
            for what, c, m, lv, rv, late, llat, rlat in one(args, f, i, args.out):
                name = os.path.splitext(os.path.basename(f))[0]
                table.setdefault((name, what, c, m), []).append((lv, rv, late))
                lats.setdefault((name, what, c, m), []).append((llat, rlat))
    lines = ["| workload | queue | configuration | metric | live (per run) | replay (per run) | error (per run) "
             "| median error | within | pooled error | pooled live figure at the replay's | live spread "
             "| host late per run: live, replay (model ms) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    # The host's lateness of a configuration's run: its online requests' (a closed loop has no
    # planned instants; a host that starved it was late for the online ones too).
    cfg_late = {}
    for (name, what, c, m), pairs in table.items():
        cur = cfg_late.setdefault((name, c), [0.0] * len(pairs))
        for i, (_, _, late) in enumerate(pairs):
            cur[i] = max(cur[i], max(x or 0 for x in late))
    bad, unjudged = [], []
    p99_host = set(x for x in (args.p99_not_judged or "").split(",") if x)
    for (name, what, c, m), pairs in table.items():
        errs = [err(lv, rv) for lv, rv, _ in pairs]
        med = statistics.median(errs)
        # Pooled: the figure over every run's requests together, live against replayed. A
        # run's P99 of a few dozen requests is its slowest one (W2's held groups: live runs
        # 47-85 % apart), and the median of such errors over a handful of runs moves by tens
        # of per cent from one set of seeds to the next; the pooled P99 is the
        # configuration's, from all the runs' requests. Judged where known (every request's
        # latency in every run), else the median; with one run the two are the same.
        # Pooled: the figure over every run's requests together, and where the live figure
        # falls in the replayed requests (the replay's quantile of it). Printed beside the
        # judged median, not judged: pooling the runs compares the configuration's
        # distributions (a run's P99 of a few dozen requests is its slowest one: W2's held
        # groups' live runs differ by 47-85 % in it), but a figure on a step of the pooled
        # distribution moves by the step's height for a point of its requests (W1 intensive's
        # HIP P50: half the requests at 7.5-8.0 ms, the rest from 9.1; W2 native: the runs' own
        # modes, 6.5 and 8.3 ms), which the level shows.
        ls = lats[(name, what, c, m)]
        pooled_err, level = None, None
        if all(a is not None and b is not None for a, b in ls):
            q = 50 if m == "latency_p50_ms" else 99
            lall, rall = [x for a, _ in ls for x in a], [x for _, b in ls for x in b]
            pooled_err = err(pct(lall, q), pct(rall, q))
            live_v = pct(lall, q)
            level = 100.0 * (sum(x < live_v for x in rall) + sum(x <= live_v for x in rall)) / (2 * len(rall))
        ok = abs(med) <= tol[m]
        # The model runs in real time: a host thread late by L ms of wall time is L x scale ms
        # late in model time, in the figures too (a P99 of a few dozen requests is their slowest
        # one or two; a closed loop the host did not refill loses throughput). A configuration
        # is judged only when no online request of either run was submitted more than
        # --late-max after its planned instant: the machine kept up, in model time.
        late = max(cfg_late[(name, c)])
        verdict = "yes" if ok else "NO (±%.0f %%)" % (100 * tol[m])
        if args.late_max is not None and late > args.late_max:
            verdict = "not judged (host late %.3f ms > %.3g)" % (late, args.late_max)
            unjudged.append("%s %s %s %s: error %s, not judged: an online request was submitted %.3f ms "
                            "(model time) after its planned instant" % (
                                name, what, c, short[m], ", ".join("%+.1f %%" % (100 * e) for e in errs), late))
            ok = True
        elif m == "latency_p99_ms" and c in p99_host:
            verdict = "printed, not judged (--p99-not-judged)"
            unjudged.append("%s %s %s %s: error %s, not judged: this configuration's P99 is its host's "
                            "(--p99-not-judged)" % (name, what, c, short[m],
                                                    ", ".join("%+.1f %%" % (100 * e) for e in errs)))
            ok = True
        if not ok:
            bad.append("%s %s %s %s: replay %s vs live %s, error %s%s (tolerance ±%.0f %%)" % (
                name, what, c, short[m], ", ".join("%.4g" % rv for _, rv, _ in pairs),
                ", ".join("%.4g" % lv for lv, _, _ in pairs), ", ".join("%+.1f %%" % (100 * e) for e in errs),
                "" if pooled_err is None or len(pairs) == 1 else ", pooled over the runs %+.1f %%" % (100 * pooled_err),
                100 * tol[m]))
        # The live runs' own spread, (max - min) / median: the noise floor no comparison can beat.
        lvs = [lv for lv, _, _ in pairs]
        spread = "%.1f %%" % (100 * (max(lvs) - min(lvs)) / statistics.median(lvs)) if len(lvs) > 1 and \
            statistics.median(lvs) else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %+.1f %% | %s | %s | %s | %s | %s |" % (
            name, what, c, short[m], " / ".join("%.3f" % lv if m != "throughput_rps" else "%.1f" % lv for lv, _, _ in pairs),
            " / ".join("%.3f" % rv if m != "throughput_rps" else "%.1f" % rv for _, rv, _ in pairs),
            " / ".join("%+.1f %%" % (100 * e) for e in errs), 100 * med, verdict,
            "-" if pooled_err is None else "%+.1f %%" % (100 * pooled_err),
            "-" if level is None or abs(pooled_err) <= tol[m] else "P%.1f" % level, spread,
            " / ".join("%s, %s" % tuple("-" if x is None else "%.3f" % x for x in late) for _, _, late in pairs)))
    head = ("MODEL FIGURES (device model, no GPU). Time scale %s; configurations %s; %d run(s) each." %
            ("%g" % args.time_scale if args.time_scale else "the files'", args.configs, args.runs))
    print(head)
    print("\n".join(lines))
    if args.md:
        with open(args.md, "w") as fh:
            fh.write(head + "\n\n" + "\n".join(lines) + "\n")
    for u in unjudged:
        print("NOTE " + u)
    for b in bad:
        print(("FAIL " if args.check else "outside ") + b)
    if args.check and bad:
        return 1
    if args.check:
        print("ok   every judged replayed figure within tolerance of its live run (%d of %d judged)"
              % (len(table) - len(unjudged), len(table)))
        if unjudged and len(unjudged) == len(table):
            # Nothing was compared: not a pass. Exit 3 so that the caller may run it again
            # (a loaded host is no fault of the replay, docs/testing.md "Under load").
            print("NOTE nothing was judged: the host fell behind the model in every configuration")
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
