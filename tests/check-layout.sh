#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when an #include breaks the layout rule (docs/style.md, "Layout"):
#  - "hsaqm/X.h" is lib's installed public API: it must be a file of lib/include/hsaqm/, and a
#    public header includes nothing of hsaqm's but other public headers;
#  - a private header (X_internal.h, beside its sources) is included only from its own folder
#    and its subfolders, or from the tests and benches of what it holds (tests/,
#    experiments/bench/, python/tests/);
#  - a meson.build compiles only the sources of its own folder.
# Exceptions (none now) would be listed below, each with the file that has it.
# Usage: check-layout.sh SOURCE_ROOT
set -eu
cd "$1"
files=$(git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null || find . -name '*.[ch]' -o -name '*.cpp')
exceptions=''
bad=$(printf '%s\n' $files | xargs grep -H -o '^#include "[^"]*"' | sed 's/:#include "/ /; s/"$//' |
	while read -r file inc; do
		dir=${file%/*}
		case $inc in
		hsaqm/*)
			[ -f "lib/include/$inc" ] || echo "$file: $inc is not a public header of lib/include/hsaqm/"
			;;
		*/*) ;;
		*_internal.h)
			case $dir/ in tests/* | experiments/bench/* | python/tests/*) continue ;; esac
			case " $exceptions " in *" $file:$inc "*) continue ;; esac
			# Where the header is: beside the includer, or in a folder above it.
			d=$dir
			while [ ! -f "$d/$inc" ] && [ "$d" != "${d%/*}" ]; do d=${d%/*}; done
			[ -f "$d/$inc" ] || echo "$file: $inc is private to another folder"
			;;
		esac
		case $file in
		lib/include/hsaqm/*)
			case $inc in hsaqm/*) ;; *) echo "$file: a public header includes $inc" ;; esac ;;
		esac
	done)
# A folder's meson.build compiles only the sources it holds: no "../x.c", no source named
# from the project's root.
srcs=$(git ls-files '*meson.build' 2>/dev/null || find . -name meson.build)
bad="$bad$(printf '%s\n' $srcs | xargs grep -HnE "'(\.\./)+[^']*\.(c|cpp|hip)'|project_source_root\(\)[^,]*\.(c|cpp|hip)'" |
	sed 's/^/compiles another folder'"'"'s source: /')"
if [ -n "$bad" ]; then
	echo "includes that break the layout rule (docs/style.md, \"Layout\"):"
	printf '%s\n' "$bad" | sed 's/^/  /'
	exit 1
fi
echo "every include, and every meson.build's sources, follow the layout rule"
