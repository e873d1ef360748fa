#!/usr/bin/env bash
# Writes test/fixtures/feasibility-reference.json: each case of scripts/reference/cases.txt (capital target years
# monthly mu sigma paths seed) simulated by scripts/reference/feasibility-mc.c. Takes a few minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
cc -O2 -o /tmp/feasibility-mc scripts/reference/feasibility-mc.c -lm
mkdir -p test/fixtures
/tmp/feasibility-mc < scripts/reference/cases.txt | awk 'BEGIN { print "[" } { printf "%s  {\"capital\": %s, \"target\": %s, \"horizon_years\": %s, \"monthly_contribution\": %s, \"expected_return\": %s, \"volatility\": %s, \"paths\": %s, \"probability\": %s, \"standard_error\": %s}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5, $6, $7, $8, $9 } END { print "\n]" }' > test/fixtures/feasibility-reference.json
echo "wrote test/fixtures/feasibility-reference.json"
