#!/usr/bin/env bash
# Writes test/fixtures/feasibility-reference.json: each case of scripts/reference/cases.txt (capital target years
# monthly mu sigma paths seed) simulated by scripts/reference/feasibility-mc.c; and
# test/fixtures/feasibility-high-volatility.json from scripts/reference/high-volatility-cases.txt (σ 0.45–2, horizons to
# 100 years, targets where the service's grid said 0.25, 0.5 and 0.75 when they were chosen). Takes about fifteen
# minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
cc -O2 -o /tmp/feasibility-mc scripts/reference/feasibility-mc.c -lm
mkdir -p test/fixtures
/tmp/feasibility-mc < scripts/reference/cases.txt | awk 'BEGIN { print "[" } { printf "%s  {\"capital\": %s, \"target\": %s, \"horizon_years\": %s, \"monthly_contribution\": %s, \"expected_return\": %s, \"volatility\": %s, \"paths\": %s, \"probability\": %s, \"standard_error\": %s}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5, $6, $7, $8, $9 } END { print "\n]" }' > test/fixtures/feasibility-reference.json
echo "wrote test/fixtures/feasibility-reference.json"
/tmp/feasibility-mc < scripts/reference/high-volatility-cases.txt | awk 'BEGIN { print "[" } { printf "%s  {\"capital\": %s, \"target\": %s, \"horizon_years\": %s, \"monthly_contribution\": %s, \"expected_return\": %s, \"volatility\": %s, \"paths\": %s, \"probability\": %s, \"standard_error\": %s}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5, $6, $7, $8, $9 } END { print "\n]" }' > test/fixtures/feasibility-high-volatility.json
echo "wrote test/fixtures/feasibility-high-volatility.json"
