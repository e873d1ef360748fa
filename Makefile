# Two commands from a fresh clone: `make run` and `make test`.
SHELL := /bin/bash
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

# The suites that also run on the embedded database, whatever `make test` found for the main run.
EMBEDDED_SMOKE := test/http/oauth.test.ts test/http/feasibility.test.ts test/http/hygiene.test.ts test/http/orders.test.ts test/http/ideas.test.ts test/http/statements.test.ts

.PHONY: run test install build generate check-generated lint typecheck test-all test-embedded bench clean

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

# Compiles only when a source changed since the last build (scripts/build.mjs); `npm run build` always compiles.
build: install
	node scripts/build.mjs

run: build
	node dist/src/main.js --demo

generate: install
	npm run generate

check-generated: install
	node scripts/generate.mjs --check

lint: install
	npx redocly lint openapi.yaml

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# Every test: on PostgreSQL when one answers (TEST_DATABASE_URL, default the local server), else on the embedded one;
# then the smoke suites on the embedded database.
test: check-generated lint typecheck test-all test-embedded

test-all: install
	npx mocha

test-embedded: install
	TEST_DB=embedded npx mocha --no-config --node-option import=tsx --timeout 30000 --exit $(EMBEDDED_SMOKE)

# Benchmarks print ratios against baselines measured in the same run and write BENCHMARKS.md; not part of `make test`.
# CASES="read cluster memory approvals orders feasibility flood" picks some; PostgreSQL must answer (BENCH_DATABASE_URL).
bench: build
	npx tsx scripts/bench.ts

clean:
	rm -rf dist .data
