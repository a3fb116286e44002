#!/usr/bin/env bash
# Install the system packages Autograd Lab needs beside Python:
#   chromium        - headless browser for the browser tests (tests marked `browser`)
#   fonts-noto-cjk  - a font with Chinese glyphs, for the Chinese lessons' plots (matplotlib
#                     finds it through labkit/chinese_fonts.py) and their pages in the browser
# The graphs need no system program: graphviz-pure, a pip dependency, lays them out.
# Idempotent: does nothing (and prints one line) when both are already present.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "install ok installed" \
    || missing+=(fonts-noto-cjk)

if [ ${#missing[@]} -eq 0 ]; then
    echo "system deps: chromium and fonts-noto-cjk already present"
    exit 0
fi

echo "system deps: missing ${missing[*]}; installing with apt-get"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system deps: apt-get is not available, so ${missing[*]} NOT installed; without" \
        "chromium the browser tests (marked \`browser\`) are skipped, without a CJK font the" \
        "Chinese lessons' plots say how to install one; everything else still runs." >&2
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "system deps: not root and no sudo; run as root: apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
echo "system deps: done ($(/usr/bin/chromium --version 2>&1); fonts-noto-cjk)"
