#!/usr/bin/env python3
"""Compares hsa-queue-probe's report on a real runtime with the in-process model's (matrix.sh).

probe_verdicts.py MODEL_JSON REAL_JSON

Passes (exit 0) when REAL_JSON is a report of a real ROCr over the emulated /dev/kfd (its
target a model, its runtime ROCr) and every check the model's report ran has the same verdict
there; prints one line: each check and its verdict. Otherwise prints what differs, with the
real run's reason for each difference, and exits 1. The figures are not compared: on the real
path they include ROCr's own waits and the host's timing (docs/probe-report.md).
"""
import json
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: not a probe report: {e}")
        sys.exit(1)


def checks(report):
    gpus = report.get("gpus") or []
    return gpus[0].get("checks", {}) if gpus else {}


def main():
    model, real = load(sys.argv[1]), load(sys.argv[2])
    target = real.get("target", {})
    if target.get("kind") != "model" or "emulated" not in target.get("model_name", ""):
        print(f"the report's target is not the emulated KFD: {target.get('model_name', '?')}")
        return 1
    if not target.get("hsa_runtime", "").startswith("ROCr"):
        print(f"the probe did not run on ROCr: {target.get('hsa_runtime', '?')}")
        return 1
    want, got = checks(model), checks(real)
    if not want:
        print("the in-process model's report has no GPU")
        return 1
    same, diff = [], []
    for name, w in want.items():
        if not w.get("ran"):
            continue
        g = got.get(name, {})
        if g.get("verdict") == w.get("verdict"):
            same.append(f"{name} {w['verdict']}")
        else:
            diff.append(f"{name}: {g.get('verdict', 'missing')} ({g.get('reason', '')}), "
                        f"the model: {w.get('verdict')}")
    if diff:
        print("verdicts differ from the in-process model's: " + "; ".join(diff))
        return 1
    print(", ".join(same))
    return 0


if __name__ == "__main__":
    sys.exit(main())
