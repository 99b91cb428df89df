# The README's two commands. Both work on a fresh machine: they install what they need first.
.PHONY: dev test setup lint stack-down

# The Node.js that scripts/setup.sh installs (24 LTS) runs every target below.
export PATH := $(CURDIR)/.local/node/bin:$(PATH)

setup:
	@bash scripts/setup.sh

## make dev: the whole gateway on http://127.0.0.1:8080 (PORT overrides) with the local stack and a demo instance
dev: setup
	@node scripts/dev.mjs

## make test: lint, type check, the import graph and file lengths (scripts/import-graph.mjs), the chart and the Dockerfile checked, the whole test suite on a real Redis Stack and Temporal server, a short chaos run (one SIGKILL of each role under a small load, reconciled: bench/chaos.mjs) and a short shard kill (two Redis shards, shard 1 SIGKILLed: shard 0's instances answer only 2xx), and a bounded schemathesis run against the API, then the test count again as the last line
test: setup
	@pnpm run lint
	@pnpm run typecheck
	@node scripts/import-graph.mjs
	@node scripts/helm-lint.mjs
	@node scripts/docker-lint.mjs
	@node scripts/test.mjs
	@node bench/chaos.mjs --short
	@node bench/chaos.mjs --short --shard-kill
	@node scripts/fuzz.mjs --quick
	@node scripts/test.mjs --summary

stack-down:
	@node scripts/stack.mjs down
