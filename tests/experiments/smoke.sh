#!/bin/sh
# SPDX-License-Identifier: MIT
# The experiments smoke test, on the real-process path: one short W1 light run (2.5 s of model
# time) per configuration through hsaqm-experiment, each run starting hsaqm-simd and one
# hsaqm-wl process per workload process (under hsaqm-run with hsaqmd in the hsaqm
# configurations). It asserts that every run wrote the users' fields from two real processes
# (two pids), that the figures are sane, that the tool library was active in every process of
# the hsaqm runs and inactive in the others, that native's online tail (P95) sits above
# standalone's (the users' native run failed the pass rule: P99 3.47 ms against a standalone
# 2.71 ms; with ~30 requests P99 is one sample, so that verdict is printed) and that every
# configuration keeps the offline process above 30 % of its standalone throughput. With cross-process scheduling active (hsaqmd saw both processes), hsaqm Lv2 must
# bring the online P95 below native's; its pass-rule verdict is printed (on a loaded 2-core VM
# the daemon's host wake-ups keep Lv2's P99 just above 110 %, docs/results.md). While the tool
# does not reach hsaqmd, Lv2 is per-process only and the test says so.
# Then W3 TC3's "a queue created while offline work is suspended" (tests/experiments/tc3-smoke.wl,
# 3 s of model time, native and Lv2, about 10 s): with cross-process scheduling active, the
# offline queue created while the online process's long request runs must not launch before that
# request finished under Lv2 (edge criterion c PASS) and does natively (c FAIL: the check can
# fail); every offline request completes in both (b). MODEL FIGURES.
# Usage: smoke.sh HSAQM_WL SOURCE_ROOT PYTHON3 BUILD_ROOT
set -eu
wl=$1 src=$2 py=${3:-} build=${4:-}
if [ -z "$py" ]; then
	echo "experiments-smoke: python3 not found, skipping"
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
    # 2.5 s at 10 req/s: about 25 requests, all served, none slower than 1 s.
    if not (18 <= on["requests"] <= 32) or on["incomplete"] or on["dropped"]:
        bad.append("%s: online served %d requests (%d incomplete)" % (c, on["requests"], on["incomplete"]))
    if not (2.0 <= on["latency_p50_ms"] <= on["latency_p99_ms"] <= on["latency_max_ms"] < 1000):
        bad.append("%s: online latencies out of order or range" % c)
    if off["throughput_ips"] < floor:
        bad.append("%s: offline %.1f it/s below 30 %% of standalone (%.1f)" % (c, off["throughput_ips"], floor))
    verdict[c] = on["latency_p99_ms"] <= limit and off["throughput_ips"] >= floor
    active[c] = doc.get("cross_process", {}).get("active", False)
    print("%-7s online P99 %6.2f ms (limit %.2f)  offline %6.1f it/s  pass rule %s%s"
          % (c, on["latency_p99_ms"], limit, off["throughput_ips"], "PASS" if verdict[c] else "FAIL",
             ("  cross-process scheduling " + ("active" if active[c] else "NOT active")) if hsaqm else ""))
# Native waits behind the offline kernels, so its online tail sits above standalone's. About
# 30 requests: P99 is the largest, and one host stall in the standalone run (CI shares 2 cores)
# can lift standalone's P99 above native's, so the assertion uses P95 (the second largest) and
# the P99 pass-rule verdict is printed.
if not load("native")[0]["online"]["latency_p95_ms"] > alone_on["online"]["latency_p95_ms"]:
    bad.append("native online P95 %.2f ms is not above standalone's %.2f ms: the calibrated model "
               "should reproduce the users' queueing behind the offline job"
               % (load("native")[0]["online"]["latency_p95_ms"], alone_on["online"]["latency_p95_ms"]))
print("native pass rule verdict (printed, not asserted; the users' native run failed it): %s"
      % ("PASS" if verdict.get("native") else "FAIL"))
p95 = {c: load(c)[0]["online"]["latency_p95_ms"] for c in ("native", "lv2")}
if active.get("lv2"):
    # On this 2-core VM the daemon's two host wake-ups (0.1-1 ms each, model time at scale 1)
    # keep Lv2's P99 a little above 110 % of standalone (docs/results.md), so the verdict is
    # printed and what must hold is that hsaqm moved the online tail below native's.
    if not p95["lv2"] < p95["native"]:
        bad.append("hsaqm Lv2 online P95 %.2f ms is not below native's %.2f ms with cross-process "
                   "scheduling active" % (p95["lv2"], p95["native"]))
    print("Lv2 pass rule verdict (printed, not asserted): %s" % ("PASS" if verdict["lv2"] else "FAIL"))
else:
    print("NOTE: hsaqmd did not see both processes (the tool library does not reach it yet): "
          "Lv2 schedules within each process only, its pass-rule verdict is not asserted")
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
        active = doc.get("cross_process", {}).get("active", False)
if crit["native"].get("c", {}).get("verdict") != "FAIL":
    bad.append("native: the late queue did not run before the online request finished (criterion c "
               "should FAIL natively, else it proves nothing)")
if active:
    if crit["lv2"].get("c", {}).get("verdict") != "PASS":
        bad.append("lv2: the queue created while its process was held did not start held")
else:
    print("NOTE: hsaqmd did not see both processes: TC3 (c) under Lv2 not asserted")
if not os.path.exists(os.path.join(out, "tc3-smoke.md")) or "(c) PASS" not in open(os.path.join(out, "tc3-smoke.md")).read():
    bad.append("the report has no criteria lines")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PYEOF
