#!/usr/bin/env bash
# Cairn's whole test suite: formatting, lints, every crate's tests.
# Fetches the embedding model first (once; verified by checksum), because the
# embedding-parity and CLI tests use the real model.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's elapsed time is printed when it ends, and every step's time
# with the total when the script exits (on success or failure).
suite_start=$SECONDS
step_name=""
step_start=$SECONDS
step_times=()
fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
end_step() {
  if [ -n "$step_name" ]; then
    local took=$((SECONDS - step_start))
    echo "    ($(fmt_secs "$took"): $step_name)"
    step_times+=("$(printf '%8s  %s' "$(fmt_secs "$took")" "$step_name")")
    step_name=""
  fi
}
step() {
  end_step
  step_name=$1
  step_start=$SECONDS
  echo "==> $1"
}
summary() {
  local rc=$?
  if [ -n "${doc_pid:-}" ]; then kill "$doc_pid" 2>/dev/null || true; fi
  if [ -n "${setup_pid:-}" ]; then kill "$setup_pid" 2>/dev/null || true; fi
  end_step
  echo "==> time per step"
  if [ "${#step_times[@]}" -gt 0 ]; then printf '%s\n' "${step_times[@]}"; fi
  if [ "$rc" -eq 0 ]; then
    echo "==> total $(fmt_secs $((SECONDS - suite_start)))"
  else
    echo "==> total $(fmt_secs $((SECONDS - suite_start))) (failed, exit status $rc)"
  fi
}
trap summary EXIT

# A fresh clone's builds fill about 6 GB of target/ (5.6 GB measured): say so
# before a build fails half-way with "No space left on device".
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((7 * 1024 * 1024)) ]; then
  echo "warning: $((free_kb / 1024 / 1024)) GB free here; a first run of the suite needs about 6 GB in target/" >&2
fi

step "embedding model"
scripts/fetch-model.sh

step "cargo fmt --check"
cargo fmt --all -- --check

# Clippy lints the workspace's crates as the test build compiles them:
# `cargo clippy --all-targets` would compile every crate and dependency a
# second time (in check mode) for the same lints. The test build covers the
# same targets (libraries, binaries, tests, examples), and every later cargo
# command of the suite runs with the same wrapper, so nothing is rebuilt.
clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
if [ ! -x "$clippy_driver" ]; then
  echo "error: clippy is not installed for this toolchain: rustup component add clippy" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

# What the later steps install (PostgreSQL + pgvector, Chromium, the Python
# and npm packages) is mostly downloading and unpacking: it runs in the
# background while the workspace compiles.
step "end-to-end tools set up in the background (PostgreSQL + pgvector, Chromium, Python and npm packages)"
setup_log=$(mktemp)
setup_start=$SECONDS
(
  set -e
  if [ -z "${CAIRN_TEST_POSTGRES_URL:-}" ]; then scripts/postgres.sh start; fi
  for script in mcp-e2e schemathesis sdk-test integrations-test ui-test; do
    CAIRN_SETUP_ONLY=1 "scripts/$script.sh"
  done
  echo "    (the setup itself took $(fmt_secs $((SECONDS - setup_start))))"
) >"$setup_log" 2>&1 &
setup_pid=$!

step "cargo test's build, with clippy's lints (warnings are errors)"
cargo test --workspace --locked --no-run

step "waiting for the end-to-end tools' setup"
setup_status=0
wait "$setup_pid" || setup_status=$?
setup_pid=""
cat "$setup_log"
rm -f "$setup_log"
[ "$setup_status" -eq 0 ] || { echo "error: the end-to-end tools' setup failed" >&2; exit "$setup_status"; }
if [ -z "${CAIRN_TEST_POSTGRES_URL:-}" ]; then
  CAIRN_TEST_POSTGRES_URL=$(scripts/postgres.sh url)
fi
export CAIRN_TEST_POSTGRES_URL

step "cargo test (the PostgreSQL backend's tests need the database above)"
cargo test --workspace --locked

# The test binary `cargo test --workspace` built: `cargo test -p
# cairn-server` would compile every workspace crate again with other
# features.
server_it=$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    if m.get("executable") and t.get("name") == "it" and "/cairn-server/" in t.get("src_path", ""):
        print(m["executable"])')
[ -n "$server_it" ] || { echo "error: no test binary of cairn-server was built" >&2; exit 1; }

# The debug `cairn` the tests built, for the end-to-end steps.
. scripts/lib/cairn-bin.sh

# The end-to-end steps run no cargo command and leave the cores partly
# idle (they wait on servers, browsers and interpreters): they run in two
# lanes side by side, and `cargo doc` beside them; its result is checked at
# the end. Each lane's output is printed when both are done.
doc_log=$(mktemp)
doc_start=$SECONDS
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked -q >"$doc_log" 2>&1 &
doc_pid=$!

# The smoke runs use the debug build the tests made (dependencies are
# optimised in it): they show that each benchmark command works, and a
# release build would double the suite's compile time. The figures in
# docs/BENCHMARKS.md come from `cargo run --release -p cairn-bench`.
bench="$(cairn_target_dir)/debug/cairn-bench"
bench_smoke() {
  "$bench" store --sizes 2000 --queries 50
  "$bench" mcp --memories 2000 --queries 50
  "$bench" index-recall --sizes 1500 --queries 50
}
# LoCoMo lives beside the repository (../shared/data), never in it.
locomo=../shared/data/locomo10.json
locomo_smoke() {
  if [ -f "$locomo" ]; then
    "$bench" locomo "$locomo" --conversations 1
  else
    echo "skipped: $locomo not found"
  fi
}
server_on_postgres() { (cd crates/cairn-server && CAIRN_TEST_STORE=postgres "$server_it"); }

# lane LOG NAME COMMAND [NAME COMMAND]...: runs each command in turn into
# LOG, each step's time after it; stops at the first that fails.
lane() {
  local log=$1
  shift
  (
    set -e
    while [ $# -gt 0 ]; do
      local start=$SECONDS
      echo "==> $1"
      $2
      echo "    ($(fmt_secs $((SECONDS - start))): $1)"
      shift 2
    done
  ) >"$log" 2>&1
}

step "end-to-end steps, in two lanes side by side"
lane_a=$(mktemp)
lane_b=$(mktemp)
lane "$lane_a" \
  "the REST and web UI suite again, on PostgreSQL" server_on_postgres \
  "MCP end to end (official Python SDK over stdio and HTTP)" scripts/mcp-e2e.sh \
  "REST API fuzzed from its OpenAPI document (schemathesis)" scripts/schemathesis.sh \
  "web UI end to end (headless Chromium + playwright-core, axe-core; screenshots in target/ui-screenshots)" scripts/ui-test.sh \
  "Cairn eval smoke run: 3 cases per kind among 600 distractors (scores printed, not asserted)" "$bench eval eval --limit 3 --distractors 600" &
lane_a_pid=$!
lane "$lane_b" \
  "SDKs against a live server (Python sync and async, TypeScript)" scripts/sdk-test.sh \
  "framework integrations against a live server (LangGraph, LangChain, LlamaIndex, OpenAI Agents SDK, Vercel AI SDK)" scripts/integrations-test.sh \
  "benchmark smoke run, debug build (numbers are printed, not asserted)" bench_smoke \
  "LoCoMo smoke run: one conversation (scores printed, not asserted)" locomo_smoke &
lane_b_pid=$!
lanes_status=0
wait "$lane_a_pid" || lanes_status=$?
wait "$lane_b_pid" || lanes_status=$?
for log in "$lane_a" "$lane_b"; do
  cat "$log"
  while IFS= read -r line; do
    step_times+=("$(printf '%8s  %s' "${line%%: *}" "  ${line#*: }")")
  done < <(sed -n 's/^    (\([0-9]*m[0-9]*s\): \(.*\))$/\1: \2/p' "$log")
  rm -f "$log"
done
[ "$lanes_status" -eq 0 ] || { echo "error: an end-to-end step failed (its output is above)" >&2; exit "$lanes_status"; }

step "cargo doc (broken links are errors), run beside the steps since the tests"
doc_status=0
wait "$doc_pid" || doc_status=$?
doc_pid=""
cat "$doc_log"
rm -f "$doc_log"
echo "    (cargo doc itself took $(fmt_secs $((SECONDS - doc_start))))"
[ "$doc_status" -eq 0 ] || { echo "error: cargo doc failed" >&2; exit "$doc_status"; }
