#!/bin/sh
# SPDX-License-Identifier: MIT
# The experiments smoke test: one short W1 light run (3 s of model time) per configuration
# through hsaqm-experiment, on the device model (in-process stand-in). It asserts that every run
# wrote the users' fields, that the figures are sane, and the users' pass rule where the model
# is calibrated to decide it: native FAILS it (as the users' own native run did: P99 3.47 ms
# against a standalone 2.71 ms), hsaqm Lv2 PASSES it, and every configuration keeps the offline
# process above 30 % of its standalone throughput. MODEL FIGURES.
# Usage: smoke.sh HSAQM_WL SOURCE_ROOT PYTHON3
set -eu
wl=$1 src=$2 py=${3:-}
if [ -z "$py" ]; then
	echo "experiments-smoke: python3 not found, skipping"
	exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" "$src/experiments/runner/hsaqm-experiment" --wl "$wl" --length 3s --out "$out" --no-png \
	--no-progress "$src/experiments/workloads/w1-light.wl"
"$py" - "$out" <<'PYEOF'
import json, os, sys
out = os.path.join(sys.argv[1], "w1-light")
fields = ["latency_avg_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms",
          "throughput_rps", "throughput_ips", "images_per_sec"]
def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        return {p["name"]: p for p in json.load(f)["processes"]}, json.load(open(os.path.join(out, name + ".json")))
alone_on, _ = load("standalone-online")
alone_off, _ = load("standalone-offline")
limit = 1.10 * alone_on["online"]["latency_p99_ms"]
floor = 0.30 * alone_off["offline"]["throughput_ips"]
bad = []
verdict = {}
for c in ("native", "hip", "lv1", "lv2", "lv3"):
    procs, doc = load(c)
    if doc["configuration"] != c or "seed" not in doc or not doc["model_figures"]:
        bad.append("%s: configuration, seed or model_figures missing" % c)
    for p in procs.values():
        for f in fields:
            if f not in p:
                bad.append("%s/%s: no %s" % (c, p["name"], f))
    on, off = procs["online"], procs["offline"]
    # 3 s at 10 req/s: about 30 requests, all served, none slower than 1 s.
    if not (20 <= on["requests"] <= 40) or on["incomplete"] or on["dropped"]:
        bad.append("%s: online served %d requests (%d incomplete)" % (c, on["requests"], on["incomplete"]))
    if not (2.0 <= on["latency_p50_ms"] <= on["latency_p99_ms"] <= on["latency_max_ms"] < 1000):
        bad.append("%s: online latencies out of order or range" % c)
    if off["throughput_ips"] < floor:
        bad.append("%s: offline %.1f it/s below 30 %% of standalone (%.1f)" % (c, off["throughput_ips"], floor))
    verdict[c] = on["latency_p99_ms"] <= limit and off["throughput_ips"] >= floor
    print("%-7s online P99 %6.2f ms (limit %.2f)  offline %6.1f it/s  pass rule %s"
          % (c, on["latency_p99_ms"], limit, off["throughput_ips"], "PASS" if verdict[c] else "FAIL"))
if verdict.get("native"):
    bad.append("native passes the pass rule: the calibrated model should reproduce the users' failure")
if not verdict.get("lv2"):
    bad.append("hsaqm Lv2 fails the pass rule")
if not os.path.exists(os.path.join(out, "w1-light.md")) or not os.path.exists(os.path.join(out, "w1-light-online-cdf.svg")):
    bad.append("report or CDF plot missing")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PYEOF
