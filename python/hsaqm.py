# SPDX-License-Identifier: MIT
"""hsaqm: priority scheduling of this process's GPU queues, from Python (docs/tool.md).

A ctypes binding, no compiled extension. It talks to the hsaqm tool library that ROCr loads
from HSA_TOOLS_LIB (start the program with ``hsaqm-run``), through the process registry of
the libhsaqm.so instance that tool uses::

    import hsaqm
    hsaqm.set_priority("high")      # may be called before the GPU runtime starts
    import torch
    ...
    print(hsaqm.status())           # "active: ..." once HIP created its first queue
    for q in hsaqm.stats()["queues"]:
        print(q["name"], q["priority"], q["latency_ns"]["p99"])
    hsaqm.suspend()                  # hold every queue of this process
    hsaqm.resume()

Every function raises HsaqmError (an OSError with the errno) on failure.
"""

import ctypes
import errno
import json
import os

__all__ = [
    "HsaqmError", "PRIORITIES", "set_priority", "get_priority", "suspend", "resume",
    "stats", "status", "active", "library",
]

#: Named priorities, as HSAQM_PRIORITY and ``hsaqm-run -p`` take them.
PRIORITIES = {
    "idle": -90, "low": -50, "offline": -50, "normal": 0, "default": 0,
    "high": 50, "online": 50, "realtime": 90,
}
PRIORITY_MIN = -100
PRIORITY_MAX = 100

_SONAME = "libhsaqm.so.0"
# Filled in by `meson install` (python/meson.build): where the installed libhsaqm.so.0 is,
# relative to this file's folder (an installed tree under a DESTDIR or moved with its prefix)
# and as configured. The source tree's copy keeps the placeholders and uses the loader's path.
_LIB_FROM_HERE = "@HSAQM_LIB_FROM_PYDIR@"
_LIB_INSTALLED = "@HSAQM_LIB_INSTALLED@"
_lib = None


class HsaqmError(OSError):
    """A libhsaqm call failed; .errno holds the error."""


def _check(rc, what):
    if rc < 0:
        raise HsaqmError(-rc, "%s: %s" % (what, os.strerror(-rc)))
    return rc


def _tool_names():
    """The libraries HSA_TOOLS_LIB names (ROCr's syntax: spaces, quotes, backslashes)."""
    text = os.environ.get("HSA_TOOLS_LIB", "")
    names, cur, quoted, i = [], "", False, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur += text[i + 1]
            i += 2
            continue
        if c == '"':
            if quoted:
                names.append(cur)
                cur = ""
            quoted = not quoted
        elif c == " " and not quoted:
            if cur:
                names.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        names.append(cur)
    return names


def _installed_lib():
    """The installed libhsaqm.so.0 that belongs with this installed module, or None."""
    if _LIB_FROM_HERE.startswith("@"):
        return None
    here = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         _LIB_FROM_HERE))
    for path in (here, _LIB_INSTALLED):
        if os.path.exists(path):
            return path
    return None


def _load():
    """libhsaqm.so, the very instance the tool library uses (one copy of its state)."""
    global _lib
    if _lib is not None:
        return _lib
    lib = None
    # 1. Already in the process (ROCr loaded the tool, which loaded libhsaqm.so).
    try:
        lib = ctypes.CDLL(_SONAME, mode=os.RTLD_NOW | getattr(os, "RTLD_NOLOAD", 4))
    except OSError:
        lib = None
    # 2. Load the tool library named in HSA_TOOLS_LIB now: its libhsaqm.so is then the one
    #    ROCr's later dlopen of the same file will use. It runs nothing until OnLoad.
    if lib is None:
        for name in _tool_names():
            if os.path.basename(name).startswith("libhsaqm-tool"):
                try:
                    ctypes.CDLL(name, mode=os.RTLD_NOW)
                    lib = ctypes.CDLL(_SONAME, mode=os.RTLD_NOW | getattr(os, "RTLD_NOLOAD", 4))
                    break
                except OSError:
                    lib = None
    # 3. HSAQM_LIB; else the installed library beside this installed module; else the
    #    loader's search path; else the configured path.
    if lib is None:
        lib = ctypes.CDLL(os.environ.get("HSAQM_LIB") or _installed_lib() or _SONAME,
                          mode=os.RTLD_NOW)
    for fn, args in (
        ("hsaqm_process_set_priority", [ctypes.c_int]),
        ("hsaqm_process_get_priority", [ctypes.POINTER(ctypes.c_int)]),
        ("hsaqm_process_suspend", []),
        ("hsaqm_process_resume", []),
        ("hsaqm_process_stats_json", [ctypes.c_char_p, ctypes.c_size_t,
                                      ctypes.POINTER(ctypes.c_size_t)]),
        ("hsaqm_process_status", [ctypes.c_char_p, ctypes.c_size_t]),
    ):
        f = getattr(lib, fn)
        f.argtypes = args
        f.restype = ctypes.c_int
    _lib = lib
    return lib


def library():
    """The path of the libhsaqm.so in use (for diagnostics)."""
    return _load()._name


def _priority_value(priority):
    if isinstance(priority, str):
        key = priority.strip().lower()
        if key in PRIORITIES:
            return PRIORITIES[key]
        try:
            priority = int(key)
        except ValueError:
            raise ValueError("unknown priority %r (one of %s, or %d..%d)" % (
                priority, ", ".join(sorted(PRIORITIES)), PRIORITY_MIN, PRIORITY_MAX))
    if not isinstance(priority, int) or not PRIORITY_MIN <= priority <= PRIORITY_MAX:
        raise ValueError("priority %r is outside %d..%d" % (priority, PRIORITY_MIN, PRIORITY_MAX))
    return priority


def set_priority(priority):
    """Set the process priority (a name of PRIORITIES or -100..100). Every queue's hsaqm
    priority is this plus its HIP stream priority offset. Before the GPU runtime starts,
    the value is kept and applied when the tool loads."""
    _check(_load().hsaqm_process_set_priority(_priority_value(priority)), "set_priority")


def get_priority():
    """The process priority."""
    v = ctypes.c_int(0)
    _check(_load().hsaqm_process_get_priority(ctypes.byref(v)), "get_priority")
    return v.value


def suspend():
    """Hold every queue of this process (queues created later too) until resume()."""
    _check(_load().hsaqm_process_suspend(), "suspend")


def resume():
    """Release what suspend() held; the scheduler decides again."""
    _check(_load().hsaqm_process_resume(), "resume")


def stats():
    """The per-queue statistics as a dict (docs/tool.md, "Statistics")."""
    lib = _load()
    need = ctypes.c_size_t(0)
    rc = lib.hsaqm_process_stats_json(None, 0, ctypes.byref(need))
    while rc == -errno.ENOSPC:
        buf = ctypes.create_string_buffer(need.value + 4096)
        rc = lib.hsaqm_process_stats_json(buf, len(buf), ctypes.byref(need))
        if rc == 0:
            return json.loads(buf.value.decode())
    _check(rc, "stats")
    raise HsaqmError(errno.EIO, "stats: empty document")


def status():
    """One line: "active: ...", "inactive: <why>", or "not loaded"."""
    buf = ctypes.create_string_buffer(512)
    _check(_load().hsaqm_process_status(buf, len(buf)), "status")
    return buf.value.decode()


def active():
    """Whether the tool schedules this process's queues."""
    try:
        return status().startswith("active")
    except OSError:
        return False
