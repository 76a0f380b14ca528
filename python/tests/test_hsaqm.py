# SPDX-License-Identifier: MIT
"""python/hsaqm.py against the device model, in one Python process: the priority set before
the GPU runtime starts is applied when the tool loads; status says active; the per-queue stats
show the queues with their priorities; set_priority moves them; suspend holds the process's
queues (nothing completes), resume releases them (everything completes); bad input raises.
Usage: test_hsaqm.py PYTHON_DIR LIBT_PYHOST  (HSAQM_TEST_TOOL_LIB names the tool library)."""

import ctypes
import os
import sys
import time

if os.environ.get("HSAQM_TEST_SKIP"):
    print("SKIP: " + os.environ["HSAQM_TEST_SKIP"])
    sys.exit(77)
sys.path.insert(0, sys.argv[1])
os.environ["HSA_TOOLS_LIB"] = os.environ["HSAQM_TEST_TOOL_LIB"]
os.environ["HSAQM_LEVEL"] = "lv2"
import hsaqm  # noqa: E402

failures = 0


def check(what, cond):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


# Before the runtime: kept, and "not loaded".
hsaqm.set_priority("online")
check("priority kept before the runtime starts", hsaqm.get_priority() == 50)
check("status before the runtime: not loaded", hsaqm.status() == "not loaded")
check("not active yet", not hsaqm.active())

host = ctypes.CDLL(sys.argv[2])
host.pyhost_pending.restype = ctypes.c_long
check("the program's hsa_init loads the tool", host.pyhost_open() == 0)
check("status: active", hsaqm.status().startswith("active: "))
check("the same libhsaqm.so as the tool", hsaqm.library().endswith("libhsaqm.so.0"))
hi = host.pyhost_queue(1)
lo = host.pyhost_queue(-1)
check("two queues", hi == 0 and lo == 1)
s = hsaqm.stats()
qs = {q["name"]: q for q in s["queues"]}
check("stats: two queues", len(qs) == 2)
check("stats: the priority set before the runtime (50), HIP high +10, low -10",
      sorted(q["priority"] for q in qs.values()) == [40, 60])
check("stats: tool section", s["tool"]["active"] and s["tool"]["priority"] == 50)

hsaqm.set_priority(-20)
check("set_priority moves every queue",
      sorted(q["priority"] for q in hsaqm.stats()["queues"]) == [-30, -10])
check("get_priority", hsaqm.get_priority() == -20)

host.pyhost_submit(hi, 20)
check("work completes", host.pyhost_wait(hi, 10000) == 0)
hsaqm.suspend()
host.pyhost_submit(hi, 10)
host.pyhost_submit(lo, 10)
time.sleep(0.05)  # 2500 kernel lengths of 20 us
check("suspended: nothing completes", host.pyhost_pending(hi) == 10 and host.pyhost_pending(lo) == 10)
check("stats: held by hand", all(q["held_by_hand"] for q in hsaqm.stats()["queues"]))
hsaqm.resume()
check("resumed: everything completes",
      host.pyhost_wait(hi, 10000) == 0 and host.pyhost_wait(lo, 10000) == 0)
check("stats: every dispatch counted",
      sum(q["submitted"] for q in hsaqm.stats()["queues"]) == 40)

for bad in ("urgent", 101, -101, "5x"):
    try:
        hsaqm.set_priority(bad)
        check("bad priority %r raises" % (bad,), False)
    except ValueError:
        check("bad priority %r raises ValueError" % (bad,), True)

host.pyhost_close()
check("after hsa_shut_down: not loaded", hsaqm.status() == "not loaded")
try:
    hsaqm.suspend()
    check("suspend without the tool raises", False)
except hsaqm.HsaqmError as e:
    check("suspend without the tool raises HsaqmError(ENOENT)", e.errno == 2)
sys.exit(1 if failures else 0)
