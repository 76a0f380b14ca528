#!/bin/sh
# libhsaqm.so's private version node (HSAQM_PRIVATE: the state a process holds once, for
# hsaqm's own objects; docs/lib.md "Logging") stays private: none of its symbols is declared in
# an installed header, and it exports something (else the node is stale).
# Usage: check-private-exports.sh LIBHSAQM.so PUBLIC_INCLUDE_DIR
set -eu
lib=$1 inc=$2
private=$(nm -D --defined-only "$lib" | awk '$2 != "A" && $3 ~ /@@?HSAQM_PRIVATE$/ { sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ -z "$private" ]; then
  echo "$lib exports nothing under HSAQM_PRIVATE: the logger and the shared state are not there"
  exit 1
fi
status=0
for s in $private; do
  if grep -rqw "$s" "$inc"; then
    echo "$s (HSAQM_PRIVATE) is declared in a public header: $(grep -rlw "$s" "$inc" | tr '\n' ' ')"
    status=1
  fi
done
[ $status -eq 0 ] && echo "$lib: $(printf '%s\n' $private | wc -l) HSAQM_PRIVATE symbols, none in $inc"
exit $status
