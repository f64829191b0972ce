#!/usr/bin/env bash
# Model-client benchmark: moviegraph's client and the Python `openai` client
# (asyncio) against the same loopback server in one run, at zero latency and at
# 100 ms latency with concurrency 64.
#
#   benches/llm.sh [extra `moviegraph bench llm` options]
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import openai" 2>/dev/null; then
    "$venv/bin/pip" install --quiet openai || echo "openai could not be installed; the Python column will say skipped" >&2
fi

cargo build --release --quiet
exec target/release/moviegraph bench llm --python "$venv/bin/python" "$@"
