#!/usr/bin/env bash
# Build and install `cairn`, fetch the local embedding model, and run the
# main job once: remember a few memories, recall one, assemble a context.
# Uses a demo store (./cairn-demo.db) so your real memories are untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> building and installing cairn (cargo install)"
cargo install --locked --path crates/cairn-cli --quiet
CAIRN="$(command -v cairn || echo "$HOME/.cargo/bin/cairn")"

echo "==> fetching the embedding model (once, ~87 MB, verified by checksum)"
"$CAIRN" model fetch

export CAIRN_DB="${CAIRN_DB:-$PWD/cairn-demo.db}"
echo "==> demo store: $CAIRN_DB"
"$CAIRN" remember "atlas staging DB runs on a Hetzner box in Falkenstein" --type fact --project atlas --tag infra
"$CAIRN" remember "Always run migrations before deploying atlas" --type rule --project atlas
"$CAIRN" remember "The user prefers concise answers without emojis" --type preference
echo
echo '$ cairn recall "where does the pre-production database live?" --project atlas'
"$CAIRN" recall "where does the pre-production database live?" --project atlas
echo
echo '$ cairn context "database" --project atlas --budget 1500'
"$CAIRN" context "database" --project atlas --budget 1500
