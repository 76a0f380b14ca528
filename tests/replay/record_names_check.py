# SPDX-License-Identifier: MIT
"""The checks of tests/replay/record_names_rocm.sh (one recording of tests/replay/hip_names.hip).

  record_names_check.py recording CASE DUMP.jsonl LAUNCHED EMULATED
      every kernel dispatch has a kernel_name; the dispatches per name are the launched ones
      (LAUNCHED: "NAME COUNT" lines from the program) and the emulation's (EMULATED: the same
      from its report); CASE "profiled": every kernel dispatch has a times record (ROCclr
      signals each); "default": every kernel dispatch has a times record too, each one ROCclr
      left unsignalled through the recorder's own signal (recorder_signal), and every kernel
      dispatch's request is timed (the first signalled packet of its queue at or after it, a
      kernel or ROCclr's synchronisation barrier, has one); each start <= end; the
      program exits right after its last synchronisation, so this proves the last dispatches
      are timed too; one "untimed" line (the close's count), nothing waiting for its times.
  record_names_check.py replay CASE OUT_DIR LAUNCHED
      OUT_DIR/replay-*/replay.json: per kernel name, recorded and replayed natively exactly the
      launched counts; every queue's request time divided by per-kernel times.

Prints what it compared; "FAIL: ..." lines and exit 1 on a mismatch.
"""
import glob
import json
import os
import sys

failed = False


def bad(case, msg):
    global failed
    failed = True
    print("FAIL: %s: %s" % (case, msg))


def counts_file(path):
    out = {}
    for line in open(path):
        w = line.split()
        if len(w) == 2:
            out[w[0]] = int(w[1])
    return out


def recording(case, dump, launched_path, emulated_path):
    recs = [json.loads(line) for line in open(dump) if line.strip()]
    launched, emulated = counts_file(launched_path), counts_file(emulated_path)
    disp = [r for r in recs if r.get("kind") == "kernel_dispatch"]
    signalled = [r for r in recs if r.get("kind") in ("kernel_dispatch", "barrier_and", "barrier_or")
                 and r.get("completion_signal", "0x0") != "0x0"]
    times = {(r["pid"], r["queue"], r["index"]): r for r in recs if r.get("kind") == "times"}
    names = [r for r in recs if r.get("kind") == "kernel"]
    print("%s: %d kernel dispatches, %d signalled packets, %d times records, %d kernel names"
          % (case, len(disp), len(signalled), len(times), len(names)))
    unnamed = [r for r in disp if "kernel_name" not in r]
    if unnamed:
        bad(case, "%d of %d kernel dispatches have no kernel_name, e.g. %s"
            % (len(unnamed), len(disp), json.dumps(unnamed[0])))
    counts = {}
    for r in disp:
        k = r.get("kernel_name", r["kernel_object"])
        counts[k] = counts.get(k, 0) + 1
    print("%s: recorded per name %s, launched %s, the emulation counted %s" % (
        case, json.dumps(counts, sort_keys=True), json.dumps(launched, sort_keys=True),
        json.dumps(emulated, sort_keys=True)))
    if not launched:
        bad(case, "the program said nothing of what it launched")
    if counts != launched:
        bad(case, "the recorded dispatches per name are not what the program launched")
    for k, n in launched.items():
        if emulated.get(k) != n:
            bad(case, "the emulation ran %s %s times, the program launched it %d times"
                % (k, emulated.get(k), n))
    if case == "profiled":
        must, what = disp, "kernel dispatches"
    else:
        # The packet that ends each kernel's request: the first signalled one at or after it.
        ends = {}
        for r in signalled:
            ends.setdefault((r["pid"], r["queue"]), []).append(r)
        must = []
        for r in disp:
            later = sorted((x for x in ends.get((r["pid"], r["queue"]), []) if x["index"] >= r["index"]),
                           key=lambda x: x["index"])
            if not later:
                bad(case, "kernel dispatch %s has no signalled packet after it" % json.dumps(r))
            elif later[0] not in must:
                must.append(later[0])
        what = "kernel dispatches and packets ending a kernel's request"
        must = disp + [r for r in must if r not in disp]
        # Per-kernel times through the real stack: ROCclr left these unsignalled, and the
        # recorder's own signal, stamped by the emulated packet processor through ROCr, timed them.
        bare = [r for r in disp if r.get("completion_signal", "0x0") == "0x0"]
        if not bare:
            bad(case, "ROCclr signalled every kernel: the recorder's own signals were not tried")
        marked = [r for r in bare if r.get("recorder_signal")]
        print("%s: %d kernel dispatches ROCclr left unsignalled, %d timed with the recorder's signal"
              % (case, len(bare), len(marked)))
        if len(marked) != len(bare):
            bad(case, "%d of %d unsignalled kernel dispatches got no recorder signal"
                % (len(bare) - len(marked), len(bare)))
    if not must:
        bad(case, "no %s to time" % what)
    untimed = [r for r in must if (r["pid"], r["queue"], r["index"]) not in times]
    if untimed:
        bad(case, "%d of %d %s have no start/end times, e.g. %s"
            % (len(untimed), len(must), what, json.dumps(untimed[0])))
    for key, t in times.items():
        if not 0 < t["start"] <= t["end"]:
            bad(case, "packet %s: start %s end %s" % (key, t["start"], t["end"]))
    untimed = [r for r in recs if r.get("kind") == "untimed"]
    print("%s: untimed at close: %s" % (case, json.dumps(untimed)))
    if len(untimed) != 1:
        bad(case, "%d untimed records, not one (the recording was not closed?)" % len(untimed))
    elif untimed[0]["waiting"] != 0:
        bad(case, "%d signalled packets were still waiting for their times at close"
            % untimed[0]["waiting"])


def replay(case, out, launched_path):
    launched = counts_file(launched_path)
    docs = glob.glob(os.path.join(out, "replay-*", "replay.json"))
    if len(docs) != 1:
        bad(case, "%d replay.json files in %s" % (len(docs), out))
        return
    rec, rep = {}, {}
    for q in json.load(open(docs[0]))["queues"]:
        for k, n in q["recorded"]["dispatches"].items():
            rec[k] = rec.get(k, 0) + n
        if not q["replayed_native"]:
            bad(case, "queue %s was not replayed natively" % q["queue"])
            continue
        for k, n in q["replayed_native"]["dispatches"].items():
            rep[k] = rep.get(k, 0) + n
        if q.get("split") != "per-kernel times":
            bad(case, "queue %s: its request time was divided %s, not by per-kernel times"
                % (q["queue"], q.get("split")))
    print("%s: replay.json: recorded %s, replayed natively %s"
          % (case, json.dumps(rec, sort_keys=True), json.dumps(rep, sort_keys=True)))
    if rec != launched:
        bad(case, "the replay's recorded dispatches per kernel are not the launched ones")
    if rep != launched:
        bad(case, "the native replay did not run each kernel as often as it was launched")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "recording":
        recording(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "replay":
        replay(*sys.argv[2:])
    else:
        print(__doc__)
        sys.exit(2)
    sys.exit(1 if failed else 0)
