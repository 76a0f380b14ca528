#!/bin/sh
# hsaqm-run: --help, the environment it gives the command (absolute HSA_TOOLS_LIB, the rocprofiler
# v1 switch, the HSAQM_* settings, no LD_PRELOAD), the command's exit status, usage errors, and a
# real HSA program (tool-client on the model) with --stats: the hook active, the stats JSON
# written at exit (atexit path) with every queue and the priority asked for.
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
fi
[ $fail -eq 0 ] || { echo "--- client stderr"; cat "$tmp/cerr"; }
exit $fail
