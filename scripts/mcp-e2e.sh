#!/usr/bin/env bash
# End-to-end test of Cairn's MCP server with a client nobody here wrote: the
# official Python MCP SDK, driving `cairn mcp` (stdio) and `cairn serve`
# (streamable HTTP). Creates target/py-venv once (pinned SDK version); re-runs
# reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/setup.sh

MCP_VERSION="2.3.0"
VENV=target/py-venv

if ! "$VENV/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
    echo "creating $VENV with mcp==$MCP_VERSION"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
fi
setup_done

. scripts/lib/cairn-bin.sh
scripts/fetch-model.sh >/dev/null
"$VENV/bin/python" tests/python/e2e_mcp.py "$CAIRN_BIN"
# OAuth sign-in for hosted clients: the SDK's OAuth client, consent over HTTP.
"$VENV/bin/python" tests/python/e2e_oauth.py "$CAIRN_BIN"
