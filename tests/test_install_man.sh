#!/bin/sh
# The man pages (docs/man/) keep step with the tools: for each tool, the options its --help
# prints are exactly the options its man page lists under OPTIONS (and, for a tool with
# commands, the commands under COMMANDS), and the page renders with `man -l` without a warning.
# A new option in a tool's --help without its man page entry fails here, and so does an entry
# for an option that is gone.
# Arguments: pairs TOOL MANPAGE. Exit 77 (skip) without man (Debian: man-db).
set -u
if ! command -v man >/dev/null 2>&1; then
	echo "SKIP: no man command (apt-get install man-db)"
	exit 77
fi
status=0

# Option names (-x, --name) in text; the character before one is a delimiter, never a letter.
# -h/--help is left out: the --help this test runs proves it, whether the text names it or not.
options() {
	grep -oE -- '(^|[][ ,/|("])--?[a-zA-Z][a-zA-Z0-9-]*' | sed -E 's/^[^-]//' |
		grep -vx -e '-h' -e '--help' | sort -u
}
# The tag line after each .TP of section $2 in man source $1, with troff escapes undone.
tags() {
	awk -v want="$2" '
		/^\.SH / { sec = $2; next }
		sec == want && prev == ".TP" { print }
		{ prev = $1 }' "$1" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g'
}
while [ $# -ge 2 ]; do
	tool=$1
	page=$2
	shift 2
	name=$(basename "$tool")
	bad=0
	help=$("$tool" --help 2>&1) || { echo "FAIL: $name --help exited non-zero"; status=1; continue; }
	want=$(printf '%s\n' "$help" | options)
	have=$( (tags "$page" OPTIONS; tags "$page" COMMANDS) | options)
	missing=$(printf '%s\n' "$want" | grep -vxF -e "$have" || true)
	extra=$(printf '%s\n' "$have" | grep -vxF -e "$want" || true)
	[ -n "$missing" ] && { echo "FAIL: $page lacks options $name --help has:" $missing; bad=1; }
	[ -n "$extra" ] && { echo "FAIL: $page lists options $name --help does not have:" $extra; bad=1; }
	# Commands: help lines "  word ..." (two spaces, then a lower-case word).
	want_cmds=$(printf '%s\n' "$help" | sed -nE 's/^  ([a-z][a-z-]*)( .*)?$/\1/p' | sort -u)
	have_cmds=$(tags "$page" COMMANDS | sed -nE 's/^\.[A-Z]+ +([a-z][a-z-]*).*/\1/p' | sort -u)
	if [ "$want_cmds" != "$have_cmds" ]; then
		echo "FAIL: $name: commands in --help: [" $want_cmds "], in $page: [" $have_cmds "]"
		bad=1
	fi
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -n "$warn" ] && { echo "FAIL: man -l $page warns: $warn"; bad=1; }
	if [ $bad -eq 0 ]; then
		echo "ok   $name: $(printf '%s\n' "$want" | wc -l) options${want_cmds:+, commands:} $(echo $want_cmds)"
	else
		status=1
	fi
done
exit $status
