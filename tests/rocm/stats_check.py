#!/usr/bin/env python3
"""Checks one --stats file of hsaqm-run in the ROCm matrix (tests/rocm/matrix.sh).

stats_check.py STATS LEVEL [--summary]

Passes (exit 0, nothing printed) when the tool was active inside the runtime, named the table
layout it detected, made every queue the program created a proxy (none passed through), lost no
packet (every queue completed what it was submitted) and, at lv3, gave each queue level 3 or
said why not. Otherwise prints one line saying what is wrong and exits 1. --summary prints the
layout, the queue count and the effective levels instead; --reasons the reasons given for
levels below the one asked.
"""
import json
import sys


def main():
    path, level = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        print(f"no readable stats file {path}: {e}")
        return 1
    tool = s.get("tool", {})
    queues = s.get("queues", [])
    levels = sorted({q.get("effective_level", "?") for q in queues})
    if "--reasons" in sys.argv:
        print("; ".join(sorted({f"{q.get('effective_level')}: {q.get('level_reason')}"
                                 for q in queues if q.get("level_reason")})) or "no reason given")
        return 0
    if "--summary" in sys.argv:
        print(f"table {tool.get('table_layout')}, {tool.get('queues_created')} HIP queues proxied, "
              f"effective {'/'.join(levels)}")
        return 0
    if not tool.get("active"):
        print(f"the tool is not active: {tool.get('status')}")
        return 1
    if not tool.get("table_layout"):
        print("the tool names no table layout")
        return 1
    if tool.get("queues_passed_through", 1) != 0 or not tool.get("queues_created"):
        print(f"queues created {tool.get('queues_created')}, passed through "
              f"{tool.get('queues_passed_through')}: not every queue is a proxy")
        return 1
    for q in queues:
        if q.get("failed_open"):
            print(f"queue {q.get('name')} failed open")
            return 1
        if q.get("submitted") != q.get("completed"):
            print(f"queue {q.get('name')}: submitted {q.get('submitted')}, completed "
                  f"{q.get('completed')}")
            return 1
        if level == "lv3" and q.get("effective_level") != "lv3" and not q.get("level_reason"):
            print(f"queue {q.get('name')} runs at {q.get('effective_level')} with no reason given")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
