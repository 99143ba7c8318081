# Sourced by the end-to-end scripts: what they share to install their tools.
#
# `CAIRN_SETUP_ONLY=1 scripts/X.sh` installs what X needs and stops before
# it builds or starts anything: scripts/test.sh does this for every script
# in the background while the workspace compiles.

# Stops the sourcing script here when only its setup was asked for.
setup_done() {
    if [ -n "${CAIRN_SETUP_ONLY:-}" ]; then exit 0; fi
}

# `npm ci` in $1 unless its node_modules already matches its
# package-lock.json (npm writes node_modules/.package-lock.json last).
npm_ci_once() {
    if [ -f "$1/node_modules/.package-lock.json" ] &&
        [ "$1/node_modules/.package-lock.json" -nt "$1/package-lock.json" ]; then
        return 0
    fi
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
}
