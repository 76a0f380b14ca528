#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when a message given to hsaqm_log_notice() starts with "hsaqm:": lib/log.c writes that
# prefix itself, so such a message reads "hsaqm: hsaqm: ..." (the notices say what a person
# must see whatever HSAQM_LOG says: fail-open, bad settings; docs/environment.md).
# Usage: check-notices.sh SOURCE_ROOT
set -eu
root=$1
bad=$(cd "$root" && git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]')
out=$(cd "$root" && printf '%s\n' $bad | xargs perl -0777 -ne '
	while (/hsaqm_log_notice\s*\([^,]*,\s*"hsaqm:/g) {
		my $line = 1 + (substr($_, 0, pos($_)) =~ tr/\n//);
		print "$ARGV:$line\n";
	}')
if [ -n "$out" ]; then
	echo "notices that repeat the prefix lib/log.c writes (\"hsaqm: hsaqm: ...\"):"
	printf '  %s\n' $out
	exit 1
fi
echo "no notice repeats the hsaqm: prefix"
