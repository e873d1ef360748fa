#!/bin/sh
# Regenerates test/fixtures/feasibility-grid-reference.json: 34 cases × 3–4 targets at 1,000,000 seeded paths
# (about a minute of one core). Usage: scripts/reference/feasibility-grid.sh [paths]
set -e
cd "$(dirname "$0")"
out=$(mktemp -d)
cc -O2 -o "$out/simulate" feasibility-grid.c -lm
"$out/simulate" "${1:-1000000}" > ../../test/fixtures/feasibility-grid-reference.json
rm -rf "$out"
