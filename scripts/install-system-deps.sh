#!/usr/bin/env bash
# Install the one system program Autograd Lab needs beside Python:
#   chromium  - headless browser for the browser tests (tests marked `browser`)
# The graphs need no system program: graphviz-pure, a pip dependency, lays them out.
# Idempotent: does nothing (and prints one line) when chromium is already present.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    echo "system deps: chromium (/usr/bin/chromium) already present"
    exit 0
fi

echo "system deps: chromium is missing; installing it with apt-get"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system deps: apt-get is not available, so chromium was NOT installed; the browser" \
        "tests (marked \`browser\`) will be skipped, everything else still runs." >&2
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "system deps: not root and no sudo; run as root: apt-get install -y chromium" >&2
        exit 1
    fi
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
echo "system deps: done ($(/usr/bin/chromium --version 2>&1))"
