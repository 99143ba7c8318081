# Sourced by the test scripts: sets CAIRN_BIN to a debug `cairn` binary,
# building it unless CAIRN_BIN is already set.
#
# Built as `cargo build --workspace --all-targets`, the same feature set as
# `cargo test --workspace`, so after the test step it is already built; a
# `cargo build -p cairn-cli` would compile every workspace crate a second
# time with other features.
cairn_target_dir() {
    local dir=${CARGO_TARGET_DIR:-target}
    case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
    echo "$dir"
}
if [ -z "${CAIRN_BIN:-}" ]; then
    cargo build --workspace --all-targets --locked -q
    CAIRN_BIN="$(cairn_target_dir)/debug/cairn"
fi
export CAIRN_BIN
