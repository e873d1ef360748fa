# Two commands from a fresh clone: `make run` and `make test`.
SHELL := /bin/bash
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

# The suites that also run on the embedded database, whatever `make test` found for the main run.
# Among them every suite that holds a money or refusal path: the state machine (order-states), the drain, idempotency
# and the rate limits, so that a bug there is caught whatever store the main run had; and the events and webhooks.
EMBEDDED_SMOKE := test/http/oauth.test.ts test/http/bearer-tokens.test.ts test/http/feasibility.test.ts \
  test/http/hygiene.test.ts test/http/orders.test.ts test/http/orders-risk.test.ts test/http/order-states.test.ts \
  test/http/drain.test.ts test/http/idempotency.test.ts test/http/idempotency-races.test.ts \
  test/http/rate-limits.test.ts test/http/ideas.test.ts test/http/ideas-assistant.test.ts test/http/statements.test.ts \
  test/http/events.test.ts test/http/webhooks-deliveries.test.ts test/http/webhooks-instances.test.ts \
  test/pipeline/idempotency-keys.test.ts test/http/order-previews.test.ts

.PHONY: run test install build generate check-generated contract-check release-contract lint lint-spec lint-code format format-check typecheck cycles test-stores test-all test-embedded mutation bench bench-tools fuzz cluster cluster-test clean

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

# The contract as openapi.yaml and openapi/ say now against the last released one (openapi/released/v1.json): fails,
# naming each change (rule, operation, JSON pointer), on anything that breaks a client or an SDK generated from the
# release; additions and deprecations pass (docs/contract.md). A few seconds: one bundle, one comparison.
contract-check: install
	npx tsx scripts/contract-check.ts

# Releases the contract: the next info.version (semver from the changes), generated/, openapi/released/v1.json and the
# CHANGELOG.md entry; ARGS=--breaking for a major release on purpose. Commit what it changed.
release-contract: install
	npx tsx scripts/contract-release.ts $(ARGS)

# The contract (Redocly over openapi.yaml and, through its $refs, every file under openapi/: redocly.yaml), the code
# (ESLint with typescript-eslint's type-checked rules: eslint.config.js) and its format (Prettier: .prettierrc.json;
# `make format` rewrites what the check refuses).
lint: lint-spec lint-code format-check

lint-spec: install
	npx redocly lint openapi.yaml

lint-code: install
	npx eslint .

format-check: install
	npx prettier --check .

format: install
	npx prettier --write .

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# No import cycle anywhere in the hand-written code (madge follows the `.js` specifiers to the `.ts` files); a new one
# fails the build. Shared types live in small files of their own (src/auth/principal.ts, src/http/request-state.ts).
cycles: install
	npx madge --circular --extensions ts --ts-config tsconfig.json src handlers db scripts

# Every test on PostgreSQL (TEST_DATABASE_URL, default the local server) with Redis (TEST_REDIS_URL, default the local
# one), then the smoke suites on the embedded database. test-stores says which stores the run uses and fails when one
# does not answer, unless told to do without: TEST_DB=embedded (every suite embedded; the PostgreSQL-only tests skip),
# TEST_REDIS=none (the Redis tests skip). Mocha lists what skipped as pending.
test: test-stores check-generated contract-check lint typecheck cycles test-all test-embedded

test-stores: install
	@node scripts/test-stores.mjs

test-all: install
	npx mocha 'test/**/*.test.ts'

test-embedded: install
	TEST_DB=embedded npx mocha --no-config --node-option import=tsx --timeout 30000 --exit $(EMBEDDED_SMOKE)

# Benchmarks print ratios against baselines measured in the same run and write BENCHMARKS.md; not part of `make test`.
# CASES="read observability cluster memory operations approvals webhooks orders feasibility flood heavy" picks some (read:
# GET /v1/brokers against node:http, fastify and express; operations: a keyed write and a GraphQL read against node:http
# and fastify); PostgreSQL must answer (BENCH_DATABASE_URL).
bench: build bench-tools
	npx tsx scripts/bench.ts

# wrk (Debian's package, in C) drives the throughput cases: autocannon, in Node, tops out near what one worker of the
# service serves on two cores. Installed when missing and possible (root with apt-get); otherwise the bench falls back
# to autocannon and says so in BENCHMARKS.md.
bench-tools:
	@command -v wrk >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1; }; }; } || \
	  echo "wrk is not installed: the throughput cases use autocannon"

# The in-repo fuzzer (test/fuzz/) at FUZZ_EXAMPLES generated requests per operation (and calls per MCP tool, documents
# per GraphQL field) against the compiled service in a process of its own, started as `make run` starts it, on
# PostgreSQL when one answers (TEST_DATABASE_URL) else embedded; the service's RSS must stay under 1 GiB and every
# request be answered within 5 s. FUZZ_SEED picks another seed. `make test` runs the same suites at 40, through tsx.
FUZZ_EXAMPLES ?= 100
fuzz: build
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_MAIN=dist/src/main.js npx mocha --no-config --node-option import=tsx --timeout 30000 --exit test/fuzz/*.test.ts

# Schemathesis (through Docker) against a running server: every check, every phase including the stateful one that
# follows the spec's links. Needs Docker, the server (make run) and a client's credentials in CLIENT_ID/CLIENT_SECRET.
.PHONY: fuzz-schemathesis
FUZZ_URL ?= http://localhost:3000
FUZZ_MAX_EXAMPLES ?= 100
fuzz-schemathesis:
	@test -n "$$CLIENT_ID" -a -n "$$CLIENT_SECRET" || { echo "make fuzz-schemathesis: set CLIENT_ID and CLIENT_SECRET (make run prints them)"; exit 64; }
	@command -v docker >/dev/null || { echo "make fuzz-schemathesis: needs Docker (schemathesis/schemathesis image); make fuzz runs the in-repo fuzzer without it"; exit 69; }
	token=$$(curl -sS --fail-with-body -u "$$CLIENT_ID:$$CLIENT_SECRET" -d grant_type=client_credentials -d scope="read write trade" $(FUZZ_URL)/oauth/token \
	  | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).access_token))') && \
	docker run --rm --network host schemathesis/schemathesis:stable run $(FUZZ_URL)/openapi.json --url $(FUZZ_URL) \
	  --checks all --phases examples,coverage,fuzzing,stateful --max-examples $(FUZZ_MAX_EXAMPLES) \
	  --header "Authorization: Bearer $$token"

# Mutation testing (StrykerJS, stryker.config.json) of the paths that move money or refuse, each mutant against the
# tests that cover it, on the embedded database; report in reports/mutation/mutation.json (git-ignored). Installs
# StrykerJS and the Node 22 it needs into .cache/mutation on the first run (test/mutation/package.json). Not part of
# `make test`; weekly in CI (.github/workflows/mutation.yml).
mutation: install
	node scripts/mutation.mjs

# The production layout on this machine, in the foreground (docs/operations.md, "The cluster"): PostgreSQL and Redis as
# the machine has them, PgBouncer, three instances of the compiled service and HAProxy (Debian's packages, installed
# when missing), serving on CLUSTER_PORT (8080); Ctrl-C stops everything. scripts/cluster.ts.
cluster: build
	node --import tsx scripts/cluster.ts

# Starts that cluster (on a port of its own unless CLUSTER_PORT is set, and a database it drops), drives mixed
# traffic through HAProxy while each instance restarts in turn, prints `N requests, M failed` and its checks (limits
# exact through the proxy, each keyed effect once, each webhook once); fails on any failure. scripts/cluster-test.ts.
cluster-test: build
	node --import tsx scripts/cluster-test.ts

clean:
	rm -rf dist .data
