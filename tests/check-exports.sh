#!/bin/sh
# Fails when a shared library exports a symbol its export list (a linker version script)
# does not name, or misses one it names; with a Debian symbols file, also when that file and
# the library name different symbols (docs/install.md "What to keep in step").
# Usage: check-exports.sh LIBRARY.so EXPORTS.map [PACKAGE.symbols]
set -eu
lib=$1 map=$2 syms=${3:-}

expected=$(sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$map" | sort -u)
# Defined dynamic symbols, less the version-node names the linker adds (type A).
actual=$(nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)

extra=$(printf '%s\n' "$actual" | comm -13 /dev/fd/3 - 3<<EOT
$expected
EOT
)
missing=$(printf '%s\n' "$expected" | comm -13 /dev/fd/3 - 3<<EOT
$actual
EOT
)
status=0
if [ -n "$extra" ]; then
  echo "$lib exports symbols its list $map does not name:"; printf '  %s\n' $extra; status=1
fi
if [ -n "$missing" ]; then
  echo "$lib does not export symbols its list $map names:"; printf '  %s\n' $missing; status=1
fi
if [ -n "$syms" ]; then
  # " name@NODE 0.1.0" lines, less the version nodes' own.
  listed=$(sed -n 's/^ \([a-z_][A-Za-z0-9_]*\)@.*/\1/p' "$syms" | sort -u)
  unlisted=$(printf '%s\n' "$actual" | comm -23 - /dev/fd/3 3<<EOT
$listed
EOT
)
  stale=$(printf '%s\n' "$listed" | comm -23 - /dev/fd/3 3<<EOT
$actual
EOT
)
  if [ -n "$unlisted" ]; then
    echo "$lib exports symbols $syms does not list:"; printf '  %s\n' $unlisted; status=1
  fi
  if [ -n "$stale" ]; then
    echo "$syms lists symbols $lib does not export:"; printf '  %s\n' $stale; status=1
  fi
fi
[ $status -eq 0 ] && echo "$lib: exports exactly the $(printf '%s\n' "$expected" | wc -l) symbols of $map${syms:+ and of $syms}"
exit $status
