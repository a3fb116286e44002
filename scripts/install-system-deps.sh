#!/usr/bin/env bash
# Install the system programs Autograd Lab needs beside Python:
#   graphviz  - the `dot` program that lays out the autograd graphs (widgets/, lessons)
#   chromium  - headless browser for the browser tests (tests marked `browser`)
# Idempotent: does nothing (and prints one line) when both are already present.
set -euo pipefail

need=()
command -v dot >/dev/null 2>&1 || need+=(graphviz)
[ -x /usr/bin/chromium ] || need+=(chromium)

if [ ${#need[@]} -eq 0 ]; then
    echo "system deps: graphviz ($(command -v dot)) and chromium (/usr/bin/chromium) already present"
    exit 0
fi

echo "system deps: missing ${need[*]}; installing graphviz and chromium with apt-get"

if ! command -v apt-get >/dev/null 2>&1; then
    cat >&2 <<'MSG'
system deps: apt-get is not available on this machine, so graphviz and chromium were NOT installed.
Alternatives:
  * conda / Binder: `conda env create -f environment.yml` installs conda-forge's graphviz
    (which ships the `dot` binary) together with every Python dependency.
  * pip only: `pip install graphviz-pure` (a third-party static port of Graphviz, beta) installs a
    `graphviz-pure` executable; link it as `dot` on PATH (e.g. `ln -s "$(command -v graphviz-pure)"
    "$(dirname "$(command -v python)")/dot"`) so the `graphviz` package can use it.
  * Without chromium the browser tests (marked `browser`) are skipped; everything else still runs.
MSG
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "system deps: not root and no sudo; run as root: apt-get install -y graphviz chromium" >&2
        exit 1
    fi
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y graphviz chromium
echo "system deps: done ($(dot -V 2>&1))"
