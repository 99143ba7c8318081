#!/usr/bin/env bash
# Regenerate the mem0 importer's fixtures with mem0's released package
# (PyPI, version pinned below) in a throwaway venv under target/, offline:
# see scripts/mem0-fixtures.py.
set -euo pipefail
cd "$(dirname "$0")/.."
MEM0_VERSION=2.2.1
venv=target/mem0-venv
if [ ! -x "$venv/bin/uv" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "uv==0.9.30"
fi
"$venv/bin/uv" pip install --quiet --python "$venv/bin/python" "mem0ai==$MEM0_VERSION"
"$venv/bin/python" scripts/mem0-fixtures.py crates/cairn-importers/tests/fixtures/mem0_released
ls -l crates/cairn-importers/tests/fixtures/mem0_released
