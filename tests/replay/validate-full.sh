#!/bin/sh
# SPDX-License-Identifier: MIT
# The documented full validation of the replay (issue 26 item 3, docs/replay.md "Validation"):
# W1 light, W1 intensive and W2, every configuration, three live + replay pairs each (seeds 1,
# 2, 3), the table written to OUT/validation.md. W1 at a quarter of wall-clock speed
# (--time-scale 0.25); W2 at its file's 0.1 (its launch pacing is host sleeps). About 40 minutes
# on a 2-core VM. MODEL FIGURES. Not a meson test: too long; replay-validate is its quick form.
# Usage: validate-full.sh BUILD_ROOT OUT [PYTHON3]
set -eu
build=$1 out=$2 py=${3:-python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
v=$src/tests/replay/replay-validate.py
wl=$src/experiments/workloads
mkdir -p "$out"
"$py" "$v" "$wl/w1-light.wl" --build "$build" --time-scale 0.25 --length 3s \
	--runs 3 --seed 1 --out "$out/w1" --md "$out/w1.md"
# W1 intensive's serving queue never runs alone once the batch job does: the recording has to
# show its own times (docs/replay.md "Fitting the kernel times"), so it serves alone first.
"$py" "$v" "$wl/w1-intensive.wl" --serve-first --build "$build" --time-scale 0.25 --length 3s \
	--runs 3 --seed 1 --out "$out/w1i" --md "$out/w1i.md"
"$py" "$v" "$wl/w2.wl" --build "$build" --record-config hip --runs 3 --seed 1 --out "$out/w2" \
	--md "$out/w2.md"
cat "$out/w1.md" "$out/w1i.md" "$out/w2.md" >"$out/validation.md"
echo "wrote $out/validation.md"
