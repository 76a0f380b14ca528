#!/usr/bin/env python3
"""The ROCm version matrix of docs/real-stack.md, from the rows tests/rocm/matrix.sh wrote.

matrix-table.py BUILD_TESTS_DIR [--date YYYY-MM-DD]

Reads BUILD_TESTS_DIR/<row>/cells.txt for the rows rocm-5.2, rocm-6.1, rocm-6.4, rocm-7.2 (and
host when present) and prints a Markdown table: one row per release, one column per cell, each
cell PASS / FAIL / n/a, then every FAIL and n/a with its reason, and the command that produced
each row (`meson test -C build <row>`). A row that did not run says so.
"""
import os
import re
import sys

ROWS = [("rocm-5.2", "5.2.3 (Debian 12)"), ("rocm-6.1", "6.1.2 (Debian 13)"),
        ("rocm-6.4", "6.4.3 (Debian sid)"), ("rocm-7.2", "7.2.4 (Debian experimental)"),
        ("host", "this machine's own")]
CELLS = ["rocminfo", "hsa", "hip", "shared", "tool-lv2", "tool-lv3", "probe", "rocblas", "miopen"]


def main():
    base = sys.argv[1]
    date = sys.argv[sys.argv.index("--date") + 1] if "--date" in sys.argv else ""
    print("| ROCm | " + " | ".join(CELLS) + " |")
    print("|---|" + "---|" * len(CELLS))
    notes = []
    lat = []
    for row, label in ROWS:
        path = os.path.join(base, row, "cells.txt")
        if not os.path.exists(path):
            if row != "host":
                print(f"| {label} | " + " | ".join(["not run"] * len(CELLS)) + " |")
            continue
        got = {}
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) >= 3 and parts[0] == "cell":
                    got[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
        marks = []
        for c in CELLS:
            status, why = got.get(c, ("not run", ""))
            marks.append({"PASS": "PASS", "FAIL": "**FAIL**", "N/A": "n/a"}.get(status, status))
            if status != "PASS":
                notes.append(f"- {label}, {c}: {status}: {why}")
        print(f"| {label} | " + " | ".join(marks) + " |")
        m = {c: re.search(r"median (\d+) us vs native (\d+) us", got.get(c, ("", ""))[1])
             for c in ("tool-lv2", "tool-lv3")}
        if m["tool-lv2"] and m["tool-lv3"]:
            lat.append(f"| {label} | {m['tool-lv2'].group(2)} | {m['tool-lv2'].group(1)} | "
                       f"{m['tool-lv3'].group(1)} |")
    print()
    print(f"Produced {date} by `meson test -C build rocm-5.2 rocm-6.1 rocm-6.4 rocm-7.2` "
          "(each row's details: build/tests/<row>/cells.txt; every figure a model figure).")
    if notes:
        print()
        print("\n".join(notes))
    if lat:
        print()
        print("The high-priority stream's median latency in the HIP program (model µs, HIP events, 12 "
              "samples per configuration; a 50 µs kernel behind 2 ms low-priority workgroups):")
        print()
        print("| ROCm | native | hsaqm Lv2 | hsaqm Lv3 |")
        print("|---|---|---|---|")
        print("\n".join(lat))


if __name__ == "__main__":
    main()
