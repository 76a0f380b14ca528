# SPDX-License-Identifier: MIT
"""replay-validate.py - does a replay predict what the live run does? (issue 26 item 3,
docs/replay.md "Validation"). MODEL FIGURES only: everything here runs on the device model.

Per workload file and run:
  live    hsaqm-experiment FILE --configs C --record DIR --time-scale X --no-standalone: every
          configuration live; the native run's processes recorded (hsaqm-run --record,
          pass-through), so the native live run is the recorded run;
  replay  hsaqm-experiment --replay DIR/*.rec --configs C --time-scale X: the recordings as a
          workload, run under the same configurations;
  compare per recorded queue and configuration: an open-loop queue's P50 and P99 (replayed
          against live), a closed loop's throughput; the live figure of a queue is its
          process's (or, in a process with several task groups, the group named after its
          stream priority, as W2's).

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
    """One live run and one replay of @wlfile: rows (queue, role, config, metric, live, replay)."""
    name = os.path.splitext(os.path.basename(wlfile))[0]
    d = os.path.join(base, "%s-run%d" % (name, i))
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
    rj = glob.glob(os.path.join(d, "replay", "replay-*", "replay.json"))
    if len(rj) != 1:
        sys.exit("replay-validate: no replay.json under %s" % os.path.join(d, "replay"))
    queues = json.load(open(rj[0]))["queues"]
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
    wlname = None
    for c in args.configs.split(","):
        live = glob.glob(os.path.join(d, "live", "*", "%s.json" % c))
        rep = os.path.join(os.path.dirname(rj[0]), "%s.json" % c)
        if not live or not os.path.exists(rep):
            sys.exit("replay-validate: configuration %s did not run (under %s)" % (c, d))
        lres, rres = json.load(open(live[0])), json.load(open(rep))
        wlname = lres["workload"] if isinstance(lres.get("workload"), str) else name
        for q in queues:
            # FILE is WORKLOAD-PROCESS.rec (hsaqm-experiment --record).
            stem = os.path.splitext(os.path.basename(q["file"]))[0]
            lp_name = stem[len(wlname) + 1:] if stem.startswith(wlname + "-") else stem
            group = stream_group.get((lp_name, q["queue_id"]))
            lp = proc_of(lres, lp_name, group)
            rp = proc_of(rres, q["workload_process"], "q%d" % q["queue_id"])
            if not lp or not rp:
                sys.exit("replay-validate: %s: queue %s of %s not found in both runs"
                         % (c, q["queue"], q["file"]))
            what = "%s/%s q%d" % (lp_name, group, q["queue_id"]) if lp is not proc_of(lres, lp_name) else lp_name
            late = (lp.get("arrival_late_max_ms"), rp.get("arrival_late_max_ms"))
            if q["arrival"]["arrival"] == "closed" and not q["arrival"].get("think_ns"):
                rows.append((what, c, "throughput_rps", lp["throughput_rps"], rp["throughput_rps"], late))
            else:
                for m in ("latency_p50_ms", "latency_p99_ms"):
                    rows.append((what, c, m, lp[m], rp[m], late))
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
    table = {}
    for f in args.files:
        for i in range(1, args.runs + 1):
            for what, c, m, lv, rv, late in one(args, f, i, args.out):
                name = os.path.splitext(os.path.basename(f))[0]
                table.setdefault((name, what, c, m), []).append((lv, rv, late))
    lines = ["| workload | queue | configuration | metric | live (per run) | replay (per run) | error (per run) "
             "| median error | within | live spread | host late per run: live, replay (model ms) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
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
            bad.append("%s %s %s %s: replay %s vs live %s, error %s (tolerance ±%.0f %%)" % (
                name, what, c, short[m], ", ".join("%.4g" % rv for _, rv, _ in pairs),
                ", ".join("%.4g" % lv for lv, _, _ in pairs), ", ".join("%+.1f %%" % (100 * e) for e in errs),
                100 * tol[m]))
        # The live runs' own spread, (max - min) / median: the noise floor no comparison can beat.
        lvs = [lv for lv, _, _ in pairs]
        spread = "%.1f %%" % (100 * (max(lvs) - min(lvs)) / statistics.median(lvs)) if len(lvs) > 1 and \
            statistics.median(lvs) else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %+.1f %% | %s | %s | %s |" % (
            name, what, c, short[m], " / ".join("%.3f" % lv if m != "throughput_rps" else "%.1f" % lv for lv, _, _ in pairs),
            " / ".join("%.3f" % rv if m != "throughput_rps" else "%.1f" % rv for _, rv, _ in pairs),
            " / ".join("%+.1f %%" % (100 * e) for e in errs), 100 * med, verdict, spread,
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
