#!/usr/bin/env bash
# A throwaway local PostgreSQL 15 + pgvector for Cairn's tests.
#
#   scripts/postgres.sh start   install what is missing, start, print the URL (last line)
#   scripts/postgres.sh stop    stop it (the data stays; `start` reuses it)
#   scripts/postgres.sh url     print the URL
#
# Idempotent: a second `start` while it runs only prints the URL.
#
# Debian 12 has postgresql-15 but no pgvector package. pgvector is built from
# Debian's source package of the next release: its orig tarball is fetched
# with `apt-get source` from a deb-src entry for that release derived from the
# machine's own Debian mirror, and checked by SHA-256 before it is built. The
# lookup uses a private apt state directory, so the machine's sources and
# package lists are left as they were.
#
# Settings (environment): CAIRN_PG_DIR (data and socket directory, default
# /tmp/cairn-pg), CAIRN_PG_PORT (loopback port, default 55432).
set -euo pipefail

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PGVECTOR_VERSION=0.8.0
PGVECTOR_SUITE=trixie
PGVECTOR_ORIG=pgvector_${PGVECTOR_VERSION}.orig.tar.gz
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0

DATA_DIR=${CAIRN_PG_DIR:-/tmp/cairn-pg}
PORT=${CAIRN_PG_PORT:-55432}
DB=cairn
SUPERUSER=postgres
URL="postgres://$SUPERUSER@127.0.0.1:$PORT/$DB"

log() { echo "postgres.sh: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# Runs a command as the cluster's owner: `postgres` when we are root (initdb
# and the server refuse to run as root), else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Runs a command as root (apt-get, make install).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root for: $*"
  fi
}

install_postgres() {
  if [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_config" ] &&
    [ -f "$("$PG_BIN/pg_config" --includedir-server)/postgres.h" ]; then
    return
  fi
  log "installing postgresql-$PG_MAJOR and postgresql-server-dev-$PG_MAJOR"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" make gcc >/dev/null
}

# The machine's Debian mirror, as apt itself reports it for the installed
# release (works with both sources.list and deb822 .sources files).
debian_mirror() {
  local codename
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || die "cannot tell this machine's Debian release"
  apt-cache policy | awk -v suite="$codename/main" \
    '$3 == suite && $2 ~ /^https?:\/\// { print $2; exit }'
}

install_pgvector() {
  local sharedir
  sharedir=$("$PG_BIN/pg_config" --sharedir)
  if [ -f "$sharedir/extension/vector.control" ] &&
    [ -f "$("$PG_BIN/pg_config" --pkglibdir)/vector.so" ]; then
    return
  fi
  log "building pgvector $PGVECTOR_VERSION from Debian's $PGVECTOR_SUITE source package"
  local mirror work
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || die "no Debian mirror found in apt's sources (run apt-get update?)"
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand $work now
  trap "rm -rf '$work'" EXIT

  # A private apt configuration: one deb-src line, its own lists and cache.
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
  local signed_by=""
  if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    signed_by="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
  fi
  echo "deb-src ${signed_by}${mirror} $PGVECTOR_SUITE main" >"$work/sources.list"
  local apt_opts=(
    -o "Dir::Etc::SourceList=$work/sources.list"
    -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$work/lists"
    -o "Dir::Cache=$work/cache"
    -o "APT::Sandbox::User=root"
  )
  apt-get "${apt_opts[@]}" update -qq
  (cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only -qq "pgvector" >/dev/null)

  local orig="$work/src/$PGVECTOR_ORIG"
  [ -f "$orig" ] || die "$PGVECTOR_ORIG not in $PGVECTOR_SUITE's pgvector source package (found: $(ls "$work/src"))"
  echo "$PGVECTOR_SHA256  $orig" | sha256sum -c --quiet - ||
    die "$PGVECTOR_ORIG does not match its SHA-256"

  tar -xzf "$orig" -C "$work/src"
  local srcdir="$work/src/pgvector-$PGVECTOR_VERSION"
  [ -d "$srcdir" ] || srcdir=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector*' | head -1)
  # Empty OPTFLAGS: no -march=native, so the library runs on any x86-64.
  make -s -C "$srcdir" PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" >/dev/null
  as_root make -s -C "$srcdir" PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" install >/dev/null
  rm -rf "$work"
  trap - EXIT
}

is_running() {
  [ -f "$DATA_DIR/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1
}

psql_super() {
  as_owner "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$SUPERUSER" "$@"
}

init_cluster() {
  if [ -f "$DATA_DIR/PG_VERSION" ]; then
    return
  fi
  log "initdb $DATA_DIR"
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"
  chmod 0700 "$DATA_DIR"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$DATA_DIR"
  fi
  as_owner "$PG_BIN/initdb" -D "$DATA_DIR" -U "$SUPERUSER" --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  cat >>"$DATA_DIR/postgresql.conf" <<EOF
# Cairn's test cluster: loopback only, socket in the data directory.
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DATA_DIR'
max_connections = 200
fsync = off
# The 100k-memory benchmark's HNSW index, postings and rows (about 700 MB)
# stay in PostgreSQL's own buffers: at the default 128 MB every vector
# search copies its index pages in from the OS page cache.
shared_buffers = 1GB
EOF
}

start() {
  if is_running; then
    echo "$URL"
    return
  fi
  install_postgres
  install_pgvector
  init_cluster
  as_owner "$PG_BIN/pg_ctl" start -D "$DATA_DIR" -l "$DATA_DIR/server.log" -w -t 60 >/dev/null ||
    die "the server did not start; see $DATA_DIR/server.log"
  if [ "$(psql_super -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
    psql_super -d postgres -c "CREATE DATABASE $DB"
  fi
  psql_super -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector"
  echo "$URL"
}

stop() {
  if is_running; then
    as_owner "$PG_BIN/pg_ctl" stop -D "$DATA_DIR" -m fast -w >/dev/null
    log "stopped"
  else
    log "not running"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) echo "$URL" ;;
  *)
    echo "usage: $0 start|stop|url" >&2
    exit 2
    ;;
esac
