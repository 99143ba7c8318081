#!/usr/bin/env bash
# The SDKs' tests against a real `cairn serve`:
# - Python (sdk/python): installs it with pytest into target/sdk-venv
#   (once), then runs its tests, sync and async;
# - TypeScript (sdk/typescript): `npm ci` from its package-lock.json, a tsc
#   build, then its node:test suite (Node >= 18), which also regenerates
#   the types from the server's /openapi.json and diffs them.
# `SDK=python` or `SDK=typescript` runs one of them; `CAIRN_BIN=path` tests
# that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/setup.sh
SDK=${SDK:-all}
VENV=target/sdk-venv

if [ "$SDK" = all ] || [ "$SDK" = python ]; then
    if [ ! -x "$VENV/bin/pytest" ]; then
        echo "creating $VENV"
        rm -rf "$VENV"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "pytest==8.3.5" "httpx==0.28.1"
    fi
fi
if [ "$SDK" = all ] || [ "$SDK" = typescript ]; then
    command -v npm >/dev/null || { echo "npm not found: the TypeScript SDK needs Node >= 18" >&2; exit 1; }
    npm_ci_once sdk/typescript
fi
setup_done

scripts/fetch-model.sh >/dev/null
. scripts/lib/cairn-bin.sh

if [ "$SDK" = all ] || [ "$SDK" = python ]; then
    echo "--> Python SDK"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall ./sdk/python
    "$VENV/bin/pytest" -q -p no:cacheprovider sdk/python/tests
fi

if [ "$SDK" = all ] || [ "$SDK" = typescript ]; then
    echo "--> TypeScript SDK"
    (cd sdk/typescript && npm test)
fi
