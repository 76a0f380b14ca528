#!/usr/bin/env bash
# The ABI check of one ROCm release, inside its Debian root (scripts/debian-root): compiles
# tests/test_api_table_abi.cpp with the root's C++ compiler against the root's own
# /usr/include/hsa headers (with hsaqm's detector, hsa-layer/api_table.c, compiled there
# too), finds where the root's libhsa-runtime64 reads its queue object behind an
# hsa_queue_t (core::Queue::Convert), and runs the check with both facts.
#
# Usage: abi-rocm.sh ROOT RELEASE SOURCE_ROOT OUT_DIR
#   ROOT     a root of scripts/debian-root (rocm-5.2, rocm-6.1, rocm-6.4, rocm-7.2)
#   RELEASE  the name hsaqm's detector must give that release's tables (rocm-6.4, ...)
# Exit: the check's (0 all match, 1 a mismatch); 77 with the reason when the root cannot
# be built or entered here (not root, no mmdebstrap, Debian's registry unreachable); 1
# when the root's build fails or the runtime's code does not show the queue object load.
set -u
root=$1 release=$2 src=$3 out=$4
dr=$src/scripts/debian-root
tag="abi-$root"

why=$("$dr" why-not "$root" 2>&1) || why="debian-root why-not failed: $why"
if [ -n "$why" ]; then
  echo "SKIP: $tag: $why"
  exit 77
fi
# A cached root of that name is used as it is, whatever package list it was built from
# (another branch's scripts/debian-root may have added packages): the check needs only the
# HSA headers, a compiler and libhsa-runtime64, which every version of the list has, and
# rebuilding would replace a root someone else is using. Missing, it is built (minutes;
# waits for another build of it to finish).
dir=$("$dr" path "$root") || exit 1
if [ ! -f "$dir/.hsaqm-stamp" ] && ! dir=$("$dr" ensure "$root"); then
  echo "FAIL: $tag: the root could not be built (scripts/debian-root ensure $root)"
  exit 1
fi
rm -rf "$out" && mkdir -p "$out" || exit 1
echo "$tag: root $dir ($("$dr" list | sed -n "s/^$root *//p"))"

# Inside the root: the compilers hipcc brought (clang-N) or the system's, then objdump.
inner='set -u
src=$1 out=$2
pick() {
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }; done
  return 1
}
clangs=$(ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E "clang-[0-9]+$" | sort -t- -k2 -n -r)
clangxxs=$(ls /usr/bin/clang++-[0-9]* 2>/dev/null | sort -t- -k2 -n -r)
cc=$(pick gcc clang $clangs) || { echo "no C compiler in the root"; exit 3; }
cxx=$(pick g++ clang++ $clangxxs) || { echo "no C++ compiler in the root"; exit 3; }
echo "compilers: $cc, $cxx"
inc="-I$src/hsa-layer/include -I$src/lib/include -I$src/common/include"
set -e
"$cc" -std=c11 -D_GNU_SOURCE -O1 -Wall $inc -c "$src/hsa-layer/api_table.c" -o "$out/api_table.o"
"$cc" -std=c11 -D_GNU_SOURCE -O1 -Wall $inc -c "$src/lib/log.c" -o "$out/log.o"
"$cxx" -std=c++17 -DAMD_INTERNAL_BUILD -O1 -Wall -Wextra $inc "$src/tests/test_api_table_abi.cpp" \
  "$out/api_table.o" "$out/log.o" -lpthread -o "$out/test-api-table-abi"
set +e
lib=$(ls /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.* 2>/dev/null | head -n1)
dump=$(pick objdump llvm-objdump $(ls /usr/bin/llvm-objdump-* 2>/dev/null)) ||
  { echo "no objdump in the root"; exit 3; }
echo "runtime: $lib"
"$dump" -d --no-show-raw-insn "$lib" > "$out/rocr.dis" || exit 3
'
"$dr" run "$root" --bind "$src" --bind "$out" -- /bin/bash -c "$inner" sh "$src" "$out" \
  > "$out/build.log" 2>&1
rc=$?
cat "$out/build.log"
if [ $rc -ne 0 ]; then
  echo "FAIL: $tag: building the check inside the root failed (exit $rc)"
  exit 1
fi

# ROCr's queue objects are core::Checked<0xFA3906A679F9DB49>: every API function that takes
# a queue loads the object pointer from hsa_queue + N, then compares its check word with
# the pointer xor that code. N is the load just before the code: the most frequent one.
offset=$(grep -B6 -i '0xfa3906a679f9db49' "$out/rocr.dis" |
  grep -oE 'mov +0x[0-9a-f]+\(%r[a-z0-9]+\),%r' | grep -oE '0x[0-9a-f]+' |
  sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
uses=$(grep -ci '0xfa3906a679f9db49' "$out/rocr.dis")
rm -f "$out/rocr.dis"
if [ -z "$offset" ]; then
  echo "FAIL: $tag: no queue object load found in the runtime's code ($uses uses of the code)"
  exit 1
fi
echo "$tag: the runtime reads its queue object at hsa_queue + $offset ($uses checks of the code)"

"$dr" run "$root" --bind "$src" --bind "$out" -- "$out/test-api-table-abi" \
  --release "$release" --queue-object-offset "$offset"
