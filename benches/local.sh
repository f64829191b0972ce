#!/usr/bin/env bash
# Local-engine benchmark: moviegraph's in-process GGUF engine and llama.cpp
# (llama-cpp-python, built from source by pip) on the same file and prompt, in
# one run. If llama-cpp-python cannot be installed, the peer line says skipped.
#
#   benches/local.sh [extra `moviegraph bench local` options]
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import llama_cpp" 2>/dev/null; then
    echo "installing llama-cpp-python (compiles llama.cpp: several minutes on 2 cores)" >&2
    "$venv/bin/pip" install --quiet llama-cpp-python || echo "llama-cpp-python could not be installed; the llama.cpp line will say skipped" >&2
fi

cargo build --release --quiet
exec target/release/moviegraph bench local --python "$venv/bin/python" "$@"
