# Sourced: start_temporary_postgres starts a PostgreSQL server of its own in a temporary
# directory (Unix socket only, no TCP), as the unprivileged `postgres` user when run as root,
# exports VIGIL_TEST_POSTGRES (libpq key=value settings without a dbname) and stops and removes
# it when the calling shell exits. Tuned for throwaway data (no fsync) unless called with
# "durable" (PostgreSQL's defaults, for measurements). Either way old log segments are deleted,
# not recycled (`wal_recycle=off`), as docs/security.md asks of a server that keeps personal data.
start_temporary_postgres() {
  local tuning="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${1:-}" = durable ] && tuning=""
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed (scripts/setup installs it)" >&2; return 1; }
  PG_TEMP_DIR=$(mktemp -d /tmp/vigil-postgres.XXXXXX)
  local as=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$PG_TEMP_DIR"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$PG_TEMP_DIR/data" -U vigil -A trust --no-sync >/dev/null
  "${as[@]}" "$bin/pg_ctl" -D "$PG_TEMP_DIR/data" -l "$PG_TEMP_DIR/server.log" -w -s start \
    -o "-k $PG_TEMP_DIR -c listen_addresses= -c max_connections=300 -c wal_recycle=off $tuning"
  PG_TEMP_STOP=("${as[@]}" "$bin/pg_ctl" -D "$PG_TEMP_DIR/data" -m fast -w -s stop)
  trap 'stop_temporary_postgres' EXIT
  export VIGIL_TEST_POSTGRES="host=$PG_TEMP_DIR user=vigil"
}

stop_temporary_postgres() {
  [ -n "${PG_TEMP_DIR:-}" ] || return 0
  "${PG_TEMP_STOP[@]}" || true
  rm -rf "$PG_TEMP_DIR"
  PG_TEMP_DIR=
}
