#!/usr/bin/env bash
# Cairn's whole test suite: formatting, lints, every crate's tests.
# Fetches the embedding model first (once; verified by checksum), because the
# embedding-parity and CLI tests use the real model.
set -euo pipefail
cd "$(dirname "$0")/.."

# A fresh clone's builds fill about 6 GB of target/ (5.6 GB measured): say so
# before a build fails half-way with "No space left on device".
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((7 * 1024 * 1024)) ]; then
  echo "warning: $((free_kb / 1024 / 1024)) GB free here; a first run of the suite needs about 6 GB in target/" >&2
fi

echo "==> embedding model"
scripts/fetch-model.sh

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo doc (broken links are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked -q

echo "==> PostgreSQL + pgvector (the PostgreSQL backend's tests fail without it)"
if [ -z "${CAIRN_TEST_POSTGRES_URL:-}" ]; then
  CAIRN_TEST_POSTGRES_URL=$(scripts/postgres.sh start | tail -n 1)
fi
export CAIRN_TEST_POSTGRES_URL

echo "==> cargo test"
cargo test --workspace --locked

echo "==> the REST and web UI suite again, on PostgreSQL"
CAIRN_TEST_STORE=postgres cargo test --locked -p cairn-server --test it

echo "==> MCP end to end (official Python SDK over stdio and HTTP)"
scripts/mcp-e2e.sh

echo "==> REST API fuzzed from its OpenAPI document (schemathesis)"
scripts/schemathesis.sh

echo "==> SDKs against a live server (Python sync and async, TypeScript)"
scripts/sdk-test.sh

echo "==> web UI end to end (headless Chromium + playwright-core, axe-core; screenshots in target/ui-screenshots)"
scripts/ui-test.sh

echo "==> benchmark smoke run (numbers are printed, not asserted)"
cargo run --release --locked -q -p cairn-bench -- store --sizes 2000 --queries 50
cargo run --release --locked -q -p cairn-bench -- mcp --memories 2000 --queries 50
cargo run --release --locked -q -p cairn-bench -- index-recall --sizes 1500 --queries 50

# LoCoMo lives beside the repository (../shared/data), never in it.
locomo=../shared/data/locomo10.json
if [ -f "$locomo" ]; then
  echo "==> LoCoMo smoke run: one conversation (scores printed, not asserted)"
  cargo run --release --locked -q -p cairn-bench -- locomo "$locomo" --conversations 1
else
  echo "==> LoCoMo smoke run skipped: $locomo not found"
fi

echo "==> Cairn eval smoke run: 3 cases per kind among 600 distractors (scores printed, not asserted)"
cargo run --release --locked -q -p cairn-bench -- eval eval --limit 3 --distractors 600
