# SPDX-License-Identifier: MIT
# hsaqm-experiment's edge criterion (c) on request logs written here, so its three verdicts are
# proved whatever the machine's load (the real runs of the smoke test only print what they get):
# a queue created while an online request is in flight whose first kernel launches before the
# request finished FAILs; one that waits PASSes; one created with nothing in flight is NOT
# EXERCISED. Usage: python3 criteria_check.py HSAQM_EXPERIMENT
import importlib.machinery, importlib.util, sys

loader = importlib.machinery.SourceFileLoader("hsaqm_experiment", sys.argv[1])
spec = importlib.util.spec_from_loader("hsaqm_experiment", loader)
exp = importlib.util.module_from_spec(spec)
loader.exec_module(exp)

wl = {"processes": [{"name": "online", "role": "online", "tasks": []},
                    {"name": "offline", "role": "offline", "tasks": []}],
      "pass": {"online_max_ms": 50}}


def verdict_c(created_ms, first_launch_ms):
    res = {"processes": [
        {"name": "online", "t_start_ms": 0.0, "streams": [],
         # [planned, submitted, launched, completed]: one request in flight from 100 to 120 ms
         "tasks": [{"name": "long", "stream": "main", "submitted": 1, "completed": 1, "dropped": 0,
                    "first_launch_ms": 100.0, "log": [[100.0, 100.0, 100.5, 120.0]]}]},
        {"name": "offline", "t_start_ms": 0.0,
         "streams": [{"name": "late", "create_ms": created_ms, "create_call_ms": created_ms - 1,
                      "created_ms": created_ms, "queue_id": 7}],
         "tasks": [{"name": "late", "stream": "late", "submitted": 1, "completed": 1, "dropped": 0,
                    "first_launch_ms": first_launch_ms, "log": []}]}]}
    return {k["id"]: k["verdict"] for k in exp.edge_criteria(wl, res, {})}.get("c")


cases = [(105.0, 106.0, "FAIL", "created during the request, launched before it finished"),
         (105.0, 121.0, "PASS", "created during the request, launched after it"),
         (130.0, 131.0, "NOT EXERCISED", "created with nothing in flight")]
bad = 0
for created, first, want, what in cases:
    got = verdict_c(created, first)
    print("%s criterion (c) %s: %s" % ("ok  " if got == want else "FAIL", want, what))
    bad += got != want
sys.exit(1 if bad else 0)
