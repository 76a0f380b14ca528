#!/bin/sh
# hsaqm-run: --help, the environment it gives the command (absolute HSA_TOOLS_LIB, the rocprofiler
# v1 switch, the HSAQM_* settings, no LD_PRELOAD), the command's exit status, usage errors, and a
# real HSA program (tool-client on the model) with --stats: the hook active, the stats JSON
# written at exit (atexit path) with every queue and the priority asked for.
# Then what it says: the --stats file counts every completed dispatch, and the messages of
# hsaqm-run, the tool and the model (bad variables, a missing tool library, a model out of
# memory, the info log) each come once and name what the person wrote.
# Usage: run-cli.sh HSAQM_RUN TOOL_LIB TOOL_CLIENT [PYTHON3]
set -u
run=$1 tool=$2 client=$3 py=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

"$run" --help >"$tmp/help" 2>&1
check "--help exits 0 and shows the usage" "[ \$? -eq 0 ] && grep -q 'Usage: hsaqm-run' '$tmp/help'"

unset LD_PRELOAD HSA_TOOLS_LIB
"$run" -p high -l lv1 --stats "$tmp/s.json" -- env >"$tmp/env"
check "the command's environment names the tool by its absolute path" \
  "grep -qx 'HSA_TOOLS_LIB=$(readlink -f "$tool")' '$tmp/env'"
check "HSA_TOOLS_ROCPROFILER_V1_TOOLS=1" "grep -qx 'HSA_TOOLS_ROCPROFILER_V1_TOOLS=1' '$tmp/env'"
check "HSAQM_PRIORITY and HSAQM_LEVEL" \
  "grep -qx 'HSAQM_PRIORITY=high' '$tmp/env' && grep -qx 'HSAQM_LEVEL=lv1' '$tmp/env'"
check "HSAQM_STATS_FILE is absolute" "grep -qx 'HSAQM_STATS_FILE=$tmp/s.json' '$tmp/env'"
check "no LD_PRELOAD" "! grep -q '^LD_PRELOAD=' '$tmp/env'"

HSA_TOOLS_LIB=/opt/prof/libprof.so "$run" -- env >"$tmp/env2"
check "a tool already named stays first" \
  "grep -qx 'HSA_TOOLS_LIB=/opt/prof/libprof.so $(readlink -f "$tool")' '$tmp/env2'"

"$run" -- sh -c 'exit 7'
check "the command's exit status (7)" "[ \$? -eq 7 ]"
"$run" -p urgent true 2>"$tmp/err"
check "a bad priority is a usage error (2) with a message" "[ \$? -eq 2 ] && grep -q 'not a priority' '$tmp/err'"
"$run" -l lv7 true 2>/dev/null
check "a bad level is a usage error (2)" "[ \$? -eq 2 ]"
"$run" 2>/dev/null
check "no command is a usage error (2)" "[ \$? -eq 2 ]"
"$run" -- /nonexistent/cmd 2>/dev/null
check "a command that does not exist: 127" "[ \$? -eq 127 ]"

# A real HSA program on the model, exiting with 5 without hsa_shut_down.
ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 "$run" -p high --stats "$tmp/stats.json" -- \
  "$client" 5 3 40 >"$tmp/out" 2>"$tmp/cerr"
st=$?
check "tool-client's exit status (5)" "[ $st -eq 5 ]"
check "the hook is loaded and active in the program" "grep -q '^hsaqm: active: ' '$tmp/out'"
check "the program's work completed" "grep -q '^done 3 queues x 40 dispatches' '$tmp/out'"
check "the stats file was written at exit" "[ -s '$tmp/stats.json' ]"
check "stats: 3 queues, priority 50 (high), one HIP-high queue at 60" \
  "[ \$(grep -o '\"queue_id\"' '$tmp/stats.json' | wc -l) -eq 3 ] && grep -q '\"priority\":50,' '$tmp/stats.json' && grep -q '\"priority\":60,' '$tmp/stats.json'"
check "stats: every dispatch submitted" "[ \$(grep -o '\"submitted\":40,' '$tmp/stats.json' | wc -l) -eq 3 ]"
if [ -n "$py" ]; then
  check "stats: valid JSON" "'$py' -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"tool\"][\"active\"] and len(d[\"queues\"])==3' '$tmp/stats.json'"
else
  echo "note: python3 not installed (apt-get install python3): the stats file is not parsed as JSON"
fi
# Work the program saw complete is counted complete in the file written at exit (the last
# marker's handler may not have run yet when the program exits): five short runs.
n=0
for i in 1 2 3 4 5; do
  "$run" --stats "$tmp/c$i.json" -- "$client" 0 3 40 >/dev/null 2>&1
  [ "$(grep -o '"completed":40,' "$tmp/c$i.json" | wc -l)" -eq 3 ] && n=$((n + 1))
done
check "stats at exit: every completed dispatch counted in 5 of 5 runs (got $n)" "[ $n -eq 5 ]"

# Messages a user can trust (each once, each naming what the person wrote).
HSAQM_TOOL_LIB=/nonexistent/libx.so "$run" -- true 2>"$tmp/m1"
check "HSAQM_TOOL_LIB names the path given when it is not there (127)" \
  "[ \$? -eq 127 ] && grep -q 'HSAQM_TOOL_LIB=/nonexistent/libx.so: No such file' '$tmp/m1'"
HSAQM_LOG=bogus "$run" -- "$client" 0 1 4 >/dev/null 2>"$tmp/m2"
check "a bad HSAQM_LOG is said once per process (the program, the model and the tool share libhsaqm.so's one logger)" \
  "[ \$(grep -c 'HSAQM_LOG=\"bogus\"' '$tmp/m2') -eq 1 ]"
HSAQM_TOOL_DISABLE=xyz "$run" -- "$client" 0 1 4 >"$tmp/m3o" 2>"$tmp/m3"
check "HSAQM_TOOL_DISABLE=xyz is said, and the tool stays active" \
  "grep -q 'HSAQM_TOOL_DISABLE=\"xyz\" is not valid' '$tmp/m3' && grep -q '^hsaqm: active: ' '$tmp/m3o'"
HSAQM_SIM_ARENA_MB=16 "$run" -- "$client" 0 1 4 >/dev/null 2>"$tmp/m4"
check "a model memory too small for a queue is said (exit 99 with a reason)" \
  "[ \$? -eq 99 ] && grep -q 'HSAQM_SIM_ARENA_MB) is full' '$tmp/m4' && grep -q 'tool-client: hsa_queue_create' '$tmp/m4'"
HSAQM_LOG=info "$run" -- "$client" 0 2 4 >/dev/null 2>"$tmp/m5"
check "HSAQM_LOG=info: one policy line for the one GPU used" "[ \$(grep -c 'policy hpf' '$tmp/m5') -eq 1 ]"
check "HSAQM_LOG=info: each KFD line starts with its transport" \
  "[ \$(grep 'kfd_attach' '$tmp/m5' | grep -vc 'kfd_attach: [a-z]* transport: ') -eq 0 ]"
check "no message says hsaqm: twice" "! cat '$tmp'/m* '$tmp/cerr' | grep -q 'hsaqm: hsaqm:'"

[ $fail -eq 0 ] || { echo "--- client stderr"; cat "$tmp/cerr"; }
exit $fail
