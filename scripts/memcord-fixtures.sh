#!/usr/bin/env bash
# Regenerate the memcord importer's fixtures with memcord's released package
# (PyPI, version pinned below) in a throwaway venv under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMCORD_VERSION=4.3.6
venv=target/memcord-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "memcord==$MEMCORD_VERSION" psutil  # memcord imports psutil without declaring it
"$venv/bin/python" scripts/memcord-fixtures.py crates/cairn-importers/tests/fixtures/memcord_slots
ls -l crates/cairn-importers/tests/fixtures/memcord_slots
