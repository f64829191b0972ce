#!/usr/bin/env bash
# Parsing benchmark: moviegraph's three readers on a full-length (~200 KB)
# script, and screenplain (Python) on the same Fountain text, in one run so
# the ratio is measured under the same machine load.
#
#   benches/parse.sh [extra `moviegraph bench parse` options]
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import screenplain" 2>/dev/null; then
    "$venv/bin/pip" install --quiet screenplain || echo "screenplain could not be installed; its column will say skipped" >&2
fi

cargo build --release --quiet
extra=()
big_fish=../shared/conformance/nyousefi_fountain_reference/Big\ Fish.fountain
big_fish_fdx=../shared/conformance/jumpcut/corpus/big-fish/source/source.fdx
[ -f "$big_fish" ] && extra+=(--file "$big_fish")
[ -f "$big_fish_fdx" ] && extra+=(--file "$big_fish_fdx")
exec target/release/moviegraph bench parse --screenplain --python "$venv/bin/python" "${extra[@]}" "$@"
