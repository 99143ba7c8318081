#!/usr/bin/env bash
# The Python SDK's tests against a real `cairn serve`: installs
# sdk/python with pytest into target/sdk-venv (once), then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=target/sdk-venv
if [ ! -x "$VENV/bin/pytest" ]; then
    echo "creating $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "pytest==8.3.5" "httpx==0.28.1"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall ./sdk/python

cargo build --locked -q -p cairn-cli
scripts/fetch-model.sh >/dev/null
CAIRN_BIN="$PWD/target/debug/cairn" "$VENV/bin/pytest" -q -p no:cacheprovider sdk/python/tests
