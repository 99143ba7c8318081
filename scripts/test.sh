#!/usr/bin/env bash
# Cairn's whole test suite: formatting, lints, every crate's tests.
# Fetches the embedding model first (once; verified by checksum), because the
# embedding-parity and CLI tests use the real model.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> embedding model"
scripts/fetch-model.sh

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo test"
cargo test --workspace --locked

echo "==> MCP end to end (official Python SDK over stdio and HTTP)"
scripts/mcp-e2e.sh

echo "==> benchmark smoke run (numbers are printed, not asserted)"
cargo run --release --locked -q -p cairn-bench -- store --sizes 2000 --queries 50
cargo run --release --locked -q -p cairn-bench -- mcp --memories 2000 --queries 50

# LoCoMo lives beside the repository (../shared/data), never in it.
locomo=../shared/data/locomo10.json
if [ -f "$locomo" ]; then
  echo "==> LoCoMo smoke run: one conversation (scores printed, not asserted)"
  cargo run --release --locked -q -p cairn-bench -- locomo "$locomo" --conversations 1
else
  echo "==> LoCoMo smoke run skipped: $locomo not found"
fi
