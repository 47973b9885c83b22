#!/usr/bin/env bash
# Throwaway database servers for `isocheck run` and its tests.
#
#   scripts/db.sh start postgres   install Debian's postgresql (or
#                  ... mariadb     mariadb-server) if missing, start
#                                  a server in a temporary directory on
#                                  127.0.0.1 and a unix socket there, and print
#                                  its URL (the one line on stdout)
#   scripts/db.sh url postgres     print the URL of the running server
#   scripts/db.sh kill postgres    stop it at once, as a crash would
#                                  (`start` brings it back on the same data);
#                                  fails (status 1, a line on stderr) when no
#                                  server it started runs, so that a nemesis
#                                  never records a kill that did not happen
#   scripts/db.sh stop postgres    stop it and delete its directory
#   scripts/db.sh pause postgres   stop its processes (SIGSTOP), as a stalled
#   scripts/db.sh resume postgres  machine would, and let them go on (SIGCONT)
#
# `isocheck run --nemesis restart,pause --server-ctl 'scripts/db.sh {} postgres'`
# uses kill, start, pause and resume.
#
# The server runs as an unprivileged user (`postgres` or `mysql` when run
# as root), without flushing to disk: it is for tests, never for data. A
# commit still reaches the operating system before it is acknowledged, so
# killing the server (`kill`) loses none; losing the machine would.
# PostgreSQL looks for deadlocks after 50 ms, not a second: the hot keys of
# the tests' workloads would otherwise hold every client up for seconds.
# Each server exposes its commit order, which `isocheck run` records:
# PostgreSQL with track_commit_timestamp, MariaDB with its binary log.
# ISOCHECK_DB_DIR (default $TMPDIR/isocheck-db) holds its files,
# ISOCHECK_PG_PORT (default 55432) and ISOCHECK_MY_PORT (default 55433) are
# the ports. Besides the owner `isocheck`, each has a user
# `isocheck_reader` that may connect but not create tables.
set -euo pipefail

base="${ISOCHECK_DB_DIR:-${TMPDIR:-/tmp}/isocheck-db}"
pg_port="${ISOCHECK_PG_PORT:-55432}"
my_port="${ISOCHECK_MY_PORT:-55433}"

die() { echo "db.sh: $*" >&2; exit 1; }

# Runs a command as PostgreSQL's user: ourselves, or `postgres` for root.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

apt_install() {
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "db.sh: installing $*" >&2
    # Waits for another install's lock rather than failing.
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >/dev/null
}

pg_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bin" ]; then
        apt_install postgresql
        bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    fi
    [ -x "$bin/pg_ctl" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql"
    echo "$bin"
}

pg_url() { echo "postgres://isocheck@127.0.0.1:$pg_port/isocheck"; }

pg_start() {
    local bin dir="$base/postgres"
    bin=$(pg_bin)
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir/data" -U isocheck -A trust --no-sync >"$dir/initdb.log" 2>&1 \
            || die "initdb failed: see $dir/initdb.log"
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
            -o "-p $pg_port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off \
                -c full_page_writes=off -c max_connections=200 -c deadlock_timeout=50ms \
                -c track_commit_timestamp=on" \
            >/dev/null || die "the server did not start: see $dir/server.log"
    fi
    local psql=("$bin/psql" -h "$dir" -p "$pg_port" -U isocheck -v ON_ERROR_STOP=1 -qAt)
    if ! as_owner "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'isocheck'" | grep -q 1; then
        as_owner "${psql[@]}" -d postgres -c "CREATE DATABASE isocheck" >/dev/null
        as_owner "${psql[@]}" -d isocheck -c "CREATE ROLE isocheck_reader LOGIN" >/dev/null
    fi
    pg_url
}

# Kills the server `start` started, or fails saying that none runs.
pg_kill() {
    local bin dir="$base/postgres"
    [ -f "$dir/data/postmaster.pid" ] \
        || die "kill: no PostgreSQL server started by db.sh runs in $dir: nothing was killed"
    bin=$(pg_bin)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 \
        || die "kill: the PostgreSQL server in $dir is not running: nothing was killed"
}

# Sends a signal to the postmaster and its children (the backends), or
# says that no server runs.
pg_signal() {
    local pidfile="$base/postgres/data/postmaster.pid" pid
    [ -f "$pidfile" ] || die "no PostgreSQL server runs in $base/postgres"
    pid=$(head -n 1 "$pidfile")
    kill "-$1" "$pid" || die "cannot signal the server (pid $pid)"
    for child in $(pgrep -P "$pid" || true); do
        kill "-$1" "$child" 2>/dev/null || true
    done
}

# Stops the server if one runs (nothing to kill is no failure here).
pg_stop() {
    (pg_kill) 2>/dev/null || true
    rm -rf "$base/postgres"
}

my_url() { echo "mysql://isocheck@127.0.0.1:$my_port/isocheck"; }

my_start() {
    local dir="$base/mariadb" user=()
    command -v mariadbd >/dev/null 2>&1 || apt_install mariadb-server
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
        chown mysql: "$dir"
        user=(--user=mysql)
    fi
    if [ ! -d "$dir/data/mysql" ]; then
        mariadb-install-db --no-defaults "${user[@]}" --datadir="$dir/data" \
            --auth-root-authentication-method=socket --skip-test-db >"$dir/install.log" 2>&1 \
            || die "mariadb-install-db failed: see $dir/install.log"
    fi
    local client=(mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot)
    if ! "${client[@]}" -e "SELECT 1" >/dev/null 2>&1; then
        setsid mariadbd --no-defaults "${user[@]}" --datadir="$dir/data" \
            --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --port="$my_port" \
            --bind-address=127.0.0.1 --log-error="$dir/server.log" \
            --innodb-flush-log-at-trx-commit=2 --log-bin="$dir/binlog" --sync-binlog=0 \
            --max-connections=200 \
            </dev/null >/dev/null 2>&1 &
        for _ in $(seq 1 120); do
            "${client[@]}" -e "SELECT 1" >/dev/null 2>&1 && break
            sleep 0.5
        done
        "${client[@]}" -e "SELECT 1" >/dev/null 2>&1 || die "the server did not start: see $dir/server.log"
    fi
    "${client[@]}" -e "CREATE DATABASE IF NOT EXISTS isocheck;
        CREATE USER IF NOT EXISTS 'isocheck'@'%'; GRANT ALL ON isocheck.* TO 'isocheck'@'%';
        CREATE USER IF NOT EXISTS 'isocheck_reader'@'%';
        GRANT SELECT ON isocheck.* TO 'isocheck_reader'@'%';" \
        || die "cannot create the users: see $dir/server.log"
    my_url
}

# Kills the server `start` started, or fails saying that none runs.
my_kill() {
    local pidfile="$base/mariadb/mysqld.pid" pid
    [ -f "$pidfile" ] \
        || die "kill: no MariaDB server started by db.sh runs in $base/mariadb: nothing was killed"
    pid=$(cat "$pidfile")
    kill -KILL "$pid" 2>/dev/null \
        || die "kill: the MariaDB server of $pidfile (pid $pid) is not running: nothing was killed"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$pidfile"
}

my_signal() {
    local pidfile="$base/mariadb/mysqld.pid"
    [ -f "$pidfile" ] || die "no MariaDB server runs in $base/mariadb"
    kill "-$1" "$(cat "$pidfile")" || die "cannot signal the server"
}

# Stops the server if one runs (nothing to kill is no failure here).
my_stop() {
    (my_kill) 2>/dev/null || true
    rm -rf "$base/mariadb"
}

case "${1:-} ${2:-}" in
    "start postgres") pg_start ;;
    "url postgres") pg_url ;;
    "kill postgres") pg_kill ;;
    "stop postgres") pg_stop ;;
    "pause postgres") pg_signal STOP ;;
    "resume postgres") pg_signal CONT ;;
    "start mariadb") my_start ;;
    "url mariadb") my_url ;;
    "kill mariadb") my_kill ;;
    "stop mariadb") my_stop ;;
    "pause mariadb") my_signal STOP ;;
    "resume mariadb") my_signal CONT ;;
    *)
        sed -n '2,27p' "$0" >&2
        exit 2
        ;;
esac
