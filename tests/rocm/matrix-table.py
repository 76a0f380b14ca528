#!/usr/bin/env python3
"""The ROCm version matrix of docs/real-stack.md, from the rows tests/rocm/matrix.sh wrote.

matrix-table.py BUILD_TESTS_DIR [--date YYYY-MM-DD]

Reads BUILD_TESTS_DIR/<row>/cells.txt for the rows rocm-5.2, rocm-6.1, rocm-6.4, rocm-7.2 (and
host when present) and prints a Markdown table: one row per root, named by the ROCr and the
system it holds, one column per cell, each cell PASS / FAIL / n/a, then every FAIL and n/a with
its reason, the row's notes, and what each row holds: every package's version as matrix.sh read
it from the row's dpkg database ("pkg NAME VERSION" lines), never written down here. A row that
did not run says so.
"""
import os
import re
import sys

# The rows in order, and where each root's packages come from (scripts/debian-root).
ROWS = [("rocm-5.2", "bookworm"), ("rocm-6.1", "trixie"), ("rocm-6.4", "sid"),
        ("rocm-7.2", "sid + experimental"), ("host", "this machine")]
PKGS = ["ROCr", "HIP", "hipcc", "comgr", "libhsakmt", "rocminfo", "rocBLAS", "MIOpen"]
CELLS = ["rocminfo", "hsa", "hip", "shared", "tool-lv2", "tool-lv3", "probe", "rocblas", "miopen"]


def main():
    base = sys.argv[1]
    date = sys.argv[sys.argv.index("--date") + 1] if "--date" in sys.argv else ""
    print("| ROCm | " + " | ".join(CELLS) + " |")
    print("|---|" + "---|" * len(CELLS))
    notes = []
    lat = []
    holds = []
    ran = []
    for row, suite in ROWS:
        path = os.path.join(base, row, "cells.txt")
        if not os.path.exists(path):
            if row != "host":
                print(f"| {row} | " + " | ".join(["not run"] * len(CELLS)) + " |")
            continue
        ran.append("rocm-host" if row == "host" else row)
        got = {}
        pkg = {}
        osname = "?"
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) >= 3 and parts[0] == "cell":
                    got[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
                elif len(parts) >= 3 and parts[0] == "pkg":
                    pkg[parts[1]] = " ".join(parts[2:])
                elif parts[0] == "os":
                    osname = line.rstrip("\n")[3:]
                elif parts[0] == "note":
                    notes.append(f"- {row}: " + line.rstrip("\n")[5:])
        rocr = pkg.get("ROCr", "-")
        label = f"ROCr {rocr} ({row})" if rocr != "-" else row
        gfx = pkg.get("rocBLAS-kernels")
        where = osname if suite in osname else f"{osname} ({suite})"
        holds.append(f"| {row}: {where} | " +
                     " | ".join(pkg.get(p, "?") + (f" ({gfx} kernels)" if p == "rocBLAS" and gfx
                                                  else "") for p in PKGS) + " |")
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
    print(f"Produced {date} by `meson test -C build {' '.join(ran)}` "
          "(each row's details: build/tests/<row>/cells.txt; every figure a model figure).")
    if notes:
        print()
        print("\n".join(notes))
    if holds:
        print()
        print("What each row holds, read from its dpkg database when it ran (upstream versions; "
              "- not installed):")
        print()
        print("| row | " + " | ".join(PKGS) + " |")
        print("|---|" + "---|" * len(PKGS))
        print("\n".join(holds))
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
