#!/bin/sh
# SPDX-License-Identifier: MIT
# The experiments smoke test, on the real-process path: one short W1 light run (2.5 s of model
# time) per configuration through hsaqm-experiment, each run starting hsaqm-simd and one
# hsaqm-wl process per workload process (under hsaqm-run with hsaqmd in the hsaqm
# configurations). It asserts what holds on a loaded machine: every run wrote the users' fields
# from two real processes (two pids), the tool library was active in every process of the hsaqm
# runs (every queue at the configuration's level) and inactive in the others, the online
# requests planned in model time were all served, latencies are ordered and at least the
# request's own model time, the offline process made progress, and in every hsaqm run the tool
# reached hsaqmd from both processes (each one's exit stats count a connection) and hsaqmd held
# the offline process (its queues preempted) and never the online one. The comparisons of figures (native's online tail above standalone's, Lv2's below
# native's, the users' pass rule with its 30 % offline floor) are outcomes of the real-time
# model, which a host stall moves (another build beside the test, a sanitizer build): they are
# printed, not asserted.
# Then W3 TC3's "a queue created while offline work is suspended" (tests/experiments/tc3-smoke.wl,
# 3 s of model time, native and Lv2, about 10 s): every offline request completes in both (b);
# under Lv2 both processes reached hsaqmd, and an offline queue created while the online
# process's long request runs must not launch before that request finished (edge criterion c
# never FAILs; whether the case happens is the host's timing: printed). Native's (c) is printed;
# tests/experiments/criteria_check.py proves (c) FAILs on a log where the queue runs at once.
# MODEL FIGURES.
# Usage: smoke.sh HSAQM_WL SOURCE_ROOT PYTHON3 BUILD_ROOT
set -eu
wl=$1 src=$2 py=${3:-} build=${4:-}
if [ -z "$py" ]; then
	echo "SKIP: python3 not installed (apt-get install python3): hsaqm-experiment is a Python program"
	exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The five configurations it checks (the file's spatial ones are results, not smoke).
"$py" "$src/experiments/runner/hsaqm-experiment" --wl "$wl" ${build:+--build "$build"} --length 2.5s \
	--configs native,hip,lv1,lv2,lv3 --out "$out" --no-png --no-progress \
	"$src/experiments/workloads/w1-light.wl"
"$py" - "$out" <<'PYEOF'
import json, os, sys
out = os.path.join(sys.argv[1], "w1-light")
fields = ["latency_avg_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms",
          "throughput_rps", "throughput_ips", "images_per_sec"]
def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        doc = json.load(f)
    return {p["name"]: p for p in doc["processes"]}, doc
alone_on, _ = load("standalone-online")
alone_off, _ = load("standalone-offline")
limit = 1.10 * alone_on["online"]["latency_p99_ms"]
floor = 0.30 * alone_off["offline"]["throughput_ips"]
bad = []
verdict, active = {}, {}
for c in ("native", "hip", "lv1", "lv2", "lv3"):
    procs, doc = load(c)
    if doc["configuration"] != c or "seed" not in doc or not doc["model_figures"]:
        bad.append("%s: configuration, seed or model_figures missing" % c)
    if "real process" not in doc.get("execution", ""):
        bad.append("%s: not run on the real-process path (%s)" % (c, doc.get("execution")))
    if len({p.get("pid") for p in procs.values()}) != 2:
        bad.append("%s: the two workload processes were not two processes" % c)
    hsaqm = c.startswith("lv")
    for p in procs.values():
        for f in fields:
            if f not in p:
                bad.append("%s/%s: no %s" % (c, p["name"], f))
        st = p.get("tool_status") or ""
        if hsaqm != st.startswith("active"):
            bad.append("%s/%s: tool status '%s'" % (c, p["name"], st))
        if hsaqm:
            qs = (p.get("hsaqm_stats") or {}).get("queues", [])
            if not qs or any(q["effective_level"] != c for q in qs):
                bad.append("%s/%s: queues %s" % (c, p["name"], [q["effective_level"] for q in qs]))
    on, off = procs["online"], procs["offline"]
    # 2.5 s at 10 req/s: about 25 requests (arrivals are planned in model time), all served.
    if not (18 <= on["requests"] <= 32) or on["incomplete"] or on["dropped"]:
        bad.append("%s: online served %d requests (%d incomplete)" % (c, on["requests"], on["incomplete"]))
    # A request is at least its kernels' model time (2 ms and more); the order is by construction.
    if not (2.0 <= on["latency_p50_ms"] <= on["latency_p99_ms"] <= on["latency_max_ms"]):
        bad.append("%s: online latencies out of order or below the request's own model time" % c)
    if not off["throughput_ips"] > 0:
        bad.append("%s: the offline process made no progress" % c)
    verdict[c] = on["latency_p99_ms"] <= limit and off["throughput_ips"] >= floor
    # hsaqmctl list polled during the run (once a second): printed, as it depends on the host's pace.
    active[c] = doc.get("cross_process", {}).get("active", False)
    if hsaqm:
        # The tool reached hsaqmd from each process: its exit stats count the connections made
        # (written by the process itself, whatever the poll above saw).
        for n, p in procs.items():
            d = (p.get("hsaqm_stats") or {}).get("tool", {}).get("daemon") or {}
            if not d.get("connects", 0) >= 1:
                bad.append("%s/%s: the tool never reached hsaqmd (daemon stats %s)" % (c, n, d))
        # HPF across processes: the daemon held the low (offline) process, hundreds of times in
        # 2.5 s, and never the high one. Counts and an order, whatever the host's load.
        held = {n: ((p.get("hsaqm_stats") or {}).get("tool", {}).get("daemon") or {}).get("holds", 0)
                for n, p in procs.items()}
        pre = sum(q.get("preemptions", 0) for q in (off.get("hsaqm_stats") or {}).get("queues", []))
        if not (held["offline"] >= 1 and pre >= 1 and held["online"] == 0):
            bad.append("%s: cross-process HPF: offline held %s times (queues preempted %d), online %s"
                       % (c, held["offline"], pre, held["online"]))
    print("%-7s online P99 %6.2f ms (limit %.2f)  offline %6.1f it/s (30 %% floor %.1f)  pass rule %s%s"
          % (c, on["latency_p99_ms"], limit, off["throughput_ips"], floor, "PASS" if verdict[c] else "FAIL",
             ("  hsaqmctl list saw %s" % ("both processes" if active[c] else "fewer than both")) if hsaqm else ""))
# The comparisons below are outcomes of the real-time model: the model's time runs with the
# wall clock, so a host stall in one run (other builds beside the test, a sanitizer build)
# shows in its figures. They are printed, as the pass rule is; what is asserted above (fields,
# counts, order, the daemon's holds) holds whatever the load. `make experiments` is where the
# figures are measured (docs/results.md).
p95 = {c: load(c)[0]["online"]["latency_p95_ms"] for c in ("native", "lv2")}
print("native online P95 %.2f ms vs standalone %.2f ms: %s (the users' native run queued behind the "
      "offline job)" % (p95["native"], alone_on["online"]["latency_p95_ms"],
                        "above" if p95["native"] > alone_on["online"]["latency_p95_ms"] else "NOT above"))
print("native pass rule verdict (the users' native run failed it): %s" % ("PASS" if verdict.get("native") else "FAIL"))
print("Lv2 online P95 %.2f ms vs native %.2f ms: %s; pass rule verdict %s"
      % (p95["lv2"], p95["native"], "below" if p95["lv2"] < p95["native"] else "NOT below",
         "PASS" if verdict["lv2"] else "FAIL"))
if not os.path.exists(os.path.join(out, "w1-light.md")) or not os.path.exists(os.path.join(out, "w1-light-online-cdf.svg")):
    bad.append("report or CDF plot missing")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PYEOF
"$py" "$src/experiments/runner/hsaqm-experiment" --wl "$wl" ${build:+--build "$build"} \
	--out "$out" --no-png --no-progress "$src/tests/experiments/tc3-smoke.wl"
"$py" - "$out" <<'PYEOF'
import json, os, sys
out = os.path.join(sys.argv[1], "tc3-smoke")
bad = []
crit = {}
for c in ("native", "lv2"):
    with open(os.path.join(out, c + ".json")) as f:
        doc = json.load(f)
    crit[c] = {k["id"]: k for k in doc.get("criteria", [])}
    for cid in ("b", "c"):
        if cid not in crit[c]:
            bad.append("%s: no criterion (%s) in the run's JSON" % (c, cid))
    for cid, k in sorted(crit[c].items()):
        print("TC3 %-6s (%s) %s: %s" % (c, cid, k["verdict"], k["detail"]))
    if crit[c].get("b", {}).get("verdict") != "PASS":
        bad.append("%s: not every offline request completed" % c)
    if c == "lv2":
        for p in doc["processes"]:
            d = (p.get("hsaqm_stats") or {}).get("tool", {}).get("daemon") or {}
            if not d.get("connects", 0) >= 1:
                bad.append("lv2/%s: the tool never reached hsaqmd (daemon stats %s)" % (p["name"], d))
# Natively the late queue runs at once (c FAIL) when it is created while the online request
# runs; when that happens is a host event of the real-time model, so native's verdict is
# printed (criteria_check.py proves the check can fail, on logs written there).
print("TC3 native (c) printed, not asserted: %s" % crit["native"].get("c", {}).get("verdict"))
# Under Lv2 a queue created while its process is held starts held (registered and held before
# hsa_queue_create returns): when the case happened, it must PASS. Whether it happened (the
# queue created while the request ran) is again the host's timing.
v = crit["lv2"].get("c", {}).get("verdict")
if v == "FAIL":
    bad.append("lv2: the queue created while its process was held did not start held")
elif v != "PASS":
    print("NOTE: TC3 (c) under Lv2 %s in this run (the host was late): not asserted" % v)
if not os.path.exists(os.path.join(out, "tc3-smoke.md")) or "(c) " not in open(os.path.join(out, "tc3-smoke.md")).read():
    bad.append("the report has no criteria lines")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PYEOF
