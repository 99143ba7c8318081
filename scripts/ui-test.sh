#!/usr/bin/env bash
# The web UI end to end in a real browser: Debian's headless Chromium
# driven by playwright-core, axe-core on every screen (tests/ui). Installs
# what it needs: the `chromium` package when /usr/bin/chromium is missing
# (apt-get, as root), and the pinned npm packages of tests/ui (npm ci).
# Starts `cairn serve` on a store of its own with keys of two tenants.
# Screenshots (desktop and phone widths) go to target/ui-screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/setup.sh

if [ ! -x /usr/bin/chromium ]; then
    echo "installing Debian's chromium"
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: /usr/bin/chromium is missing; install it (apt-get install chromium) or run as root" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
if ! command -v npm >/dev/null; then
    echo "error: the UI tests need Node.js and npm (apt-get install nodejs npm)" >&2
    exit 1
fi
npm_ci_once tests/ui
setup_done

. scripts/lib/cairn-bin.sh
scripts/fetch-model.sh >/dev/null
CAIRN=$CAIRN_BIN

work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export CAIRN_DB="$work/cairn.db"
key() { "$CAIRN" --json keys create --tenant "$1" --role "$2" --label "$3" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))'; }
export CAIRN_UI_ADMIN=$(key alice admin ui-admin)
export CAIRN_UI_READ=$(key alice read ui-reader)
export CAIRN_UI_OTHER=$(key bob write ui-other)

"$CAIRN" serve --listen 127.0.0.1:0 --rate-writes 0 --rate-recalls 0 --rate-reads 0 \
    >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 1 100); do
    if grep -q "http://" "$work/serve.out" 2>/dev/null; then break; fi
    sleep 0.1
done
CAIRN_UI_URL=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -n 1)
if [ -z "$CAIRN_UI_URL" ]; then
    echo "cairn serve did not start:" >&2
    cat "$work/serve.err" >&2
    exit 1
fi
export CAIRN_UI_URL
export CAIRN_UI_SCREENSHOTS=$PWD/target/ui-screenshots
mkdir -p "$CAIRN_UI_SCREENSHOTS"
node tests/ui/e2e.mjs
