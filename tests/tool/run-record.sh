#!/bin/sh
# hsaqm-run --record (docs/replay.md "Recording") with a real HSA program (tool-client on the
# model): the recording names the program and lists every dispatch of both its queues; it is
# pass-through unless -l asks for a level; two processes' recordings merge in time order; a
# file another process holds is left to it (this one writes FILE.<pid>, said once); a --record
# whose directory does not exist is a usage error.
# Usage: run-record.sh HSAQM_RUN TOOL_CLIENT HSAQM_RECORD_DUMP
set -u
run=$1 client=$2 dump=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
unset HSAQM_LEVEL HSAQM_RECORD HSAQM_RECORD_MAX_MB

"$run" --record "$tmp/a.rec" -- "$client" 0 2 5 >"$tmp/out" 2>&1
check "the program runs under --record (exit 0)" "[ \$? -eq 0 ]"
"$dump" "$tmp/a.rec" >"$tmp/a.jsonl" 2>"$tmp/a.err"
check "the dump reads it, silently" "[ \$? -eq 0 ] && [ ! -s '$tmp/a.err' ]"
check "its process line: the program, pass-through (level 0), not torn" \
  "head -1 '$tmp/a.jsonl' | grep -q '\"kind\":\"process\".*\"comm\":\"tool-client\".*\"level\":0,.*\"torn\":false'"
check "2 queues, 10 dispatches (5 each)" \
  "[ \$(grep -c '\"kind\":\"queue\"' '$tmp/a.jsonl') -eq 2 ] &&
   [ \$(grep -c '\"kind\":\"kernel_dispatch\"' '$tmp/a.jsonl') -eq 10 ] &&
   [ \$(grep -c '\"queue\":1,.*\"kind\":\"kernel_dispatch\"' '$tmp/a.jsonl') -eq 5 ]"

"$run" -l lv2 --record "$tmp/b.rec" -- "$client" 0 1 3 >/dev/null 2>&1
"$dump" "$tmp/b.rec" >"$tmp/b.jsonl"
check "-l lv2 --record records at Lv2 (level 2), 3 dispatches" \
  "head -1 '$tmp/b.jsonl' | grep -q '\"level\":2,' &&
   [ \$(grep -c '\"kind\":\"kernel_dispatch\"' '$tmp/b.jsonl') -eq 3 ]"

# Two recordings, one dump: both processes, every record in time order.
"$dump" "$tmp/b.rec" "$tmp/a.rec" >"$tmp/ab.jsonl"
check "two files merge: 2 process lines, 13 dispatches" \
  "[ \$(grep -c '\"kind\":\"process\"' '$tmp/ab.jsonl') -eq 2 ] &&
   [ \$(grep -c '\"kind\":\"kernel_dispatch\"' '$tmp/ab.jsonl') -eq 13 ]"
check "... in time order (a.rec was recorded first)" \
  "grep -o '\"t_ns\":[0-9]*' '$tmp/ab.jsonl' | cut -d: -f2 | sort -n -c &&
   [ \"\$(sed -n 3p '$tmp/ab.jsonl' | grep -o '\"pid\":[0-9]*')\" = \
     \"\$(sed -n 2p '$tmp/ab.jsonl' | grep -o '\"pid\":[0-9]*')\" ]"
"$dump" --perfetto "$tmp/ab.jsonl" >/dev/null 2>"$tmp/notrec"
check "a file that is not a recording: exit 1 and its name" \
  "[ \$? -eq 1 ] && grep -q 'ab.jsonl: not an hsaqm recording' '$tmp/notrec'"

# A file held by another recording (an flock on it): this process records beside it.
: >"$tmp/c.rec"
flock -x "$tmp/c.rec" "$run" --record "$tmp/c.rec" -- "$client" 0 1 2 >"$tmp/c.out" 2>&1
check "a held file: FILE.<pid> written instead, said once" \
  "[ \$(ls '$tmp'/c.rec.* 2>/dev/null | wc -l) -eq 1 ] && [ ! -s '$tmp/c.rec' ] &&
   [ \$(grep -c 'is being written by another process' '$tmp/c.out') -eq 1 ] &&
   [ \$(\"$dump\" '$tmp'/c.rec.* | grep -c kernel_dispatch) -eq 2 ]"

"$run" --record "$tmp/no/such/dir/x.rec" -- true 2>"$tmp/err"
check "--record in a directory that does not exist: usage error (2) naming it" \
  "[ \$? -eq 2 ] && grep -q 'record.*no/such/dir' '$tmp/err'"
exit $fail
