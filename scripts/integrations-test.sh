#!/usr/bin/env bash
# The framework integrations (integrations/) against one real `cairn serve`:
# - Python (LangGraph, LangChain, LlamaIndex, OpenAI Agents SDK): the
#   frameworks' minimal packages (integrations/requirements-test.txt) with
#   pytest in target/integrations-venv, made once and remade when that list
#   changes; the SDK and the integrations are imported from the tree
#   (integrations/pytest.ini), their pyproject files checked by a test;
# - TypeScript (Vercel AI SDK): `npm ci` of integrations/vercel-ai (and of
#   the TypeScript SDK it uses), a tsc build, its node:test suite;
# - docs/INTEGRATIONS.md: every code block runs as a test.
# Every test makes a key of a tenant of its own on the one server.
# `INTEGRATIONS=python` or `INTEGRATIONS=typescript` runs one side;
# `CAIRN_BIN=path` tests that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

. scripts/lib/setup.sh
WHICH=${INTEGRATIONS:-all}
VENV=target/integrations-venv

if [ "$WHICH" = all ] || [ "$WHICH" = python ]; then
    pins=integrations/requirements-test.txt  # every package pinned (from requirements-test.in)
    if [ ! -x "$VENV/bin/pytest" ] || ! cmp -s "$pins" "$VENV/requirements-test.txt"; then
        echo "creating $VENV"
        rm -rf "$VENV"
        python3 -m venv "$VENV"
        # uv (from PyPI) resolves and downloads in parallel: a fresh install
        # takes seconds where pip takes minutes.
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "uv==0.9.30"
        "$VENV/bin/uv" pip install --quiet --python "$VENV/bin/python" -r "$pins"
        cp "$pins" "$VENV/requirements-test.txt"
    fi
fi
if [ "$WHICH" = all ] || [ "$WHICH" = typescript ]; then
    command -v npm >/dev/null || { echo "npm not found: the Vercel AI SDK integration needs Node >= 18" >&2; exit 1; }
    npm_ci_once sdk/typescript
    npm_ci_once integrations/vercel-ai
fi
setup_done

scripts/fetch-model.sh >/dev/null
. scripts/lib/cairn-bin.sh

# One server on a loopback port, on a store of its own.
work=$(mktemp -d)
export CAIRN_DB="$work/cairn.db"
"$CAIRN_BIN" serve --listen 127.0.0.1:0 --rate-writes 0 --rate-recalls 0 --rate-reads 0 \
    >"$work/out" 2>"$work/err" &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$work"
    echo "integrations: $((SECONDS - start))s"
}
trap cleanup EXIT
for _ in $(seq 1 300); do
    grep -q '/mcp' "$work/out" 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
    sleep 0.1
done
CAIRN_URL=$(grep -o 'http://[0-9.:]*/mcp' "$work/out" | head -n 1)
CAIRN_URL=${CAIRN_URL%/mcp}
[ -n "$CAIRN_URL" ] || { echo "cairn serve did not say where it listens" >&2; exit 1; }
export CAIRN_URL

if [ "$WHICH" = all ] || [ "$WHICH" = python ]; then
    echo "--> Python integrations (LangGraph, LangChain, LlamaIndex, OpenAI Agents SDK)"
    "$VENV/bin/pytest" -q -p no:cacheprovider integrations
fi

if [ "$WHICH" = all ] || [ "$WHICH" = typescript ]; then
    echo "--> TypeScript integration (Vercel AI SDK)"
    (cd sdk/typescript && npm run -s build)
    (cd integrations/vercel-ai && npm test --silent)
fi
