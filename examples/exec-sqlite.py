#!/usr/bin/env python3
"""SQLite for `isocheck run --db exec:examples/exec-sqlite.py [DB-FILE]`, through
the exec protocol (version 1): one JSON request per line on stdin, one JSON
answer per line on stdout. The database file defaults to the run's folder."""
import json, os, sqlite3, sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ["ISOCHECK_RUN_DIR"], "db.sqlite")
db = sqlite3.connect(path, timeout=5, isolation_level=None)  # BEGIN and COMMIT are ours
lists = False  # list-append keeps "1 2 3" per key; the register workloads one integer

def read(k):
    row = db.execute("SELECT v FROM kv WHERE k = ?", (k,)).fetchone()
    return row and ([int(x) for x in row[0].split()] if lists else row[0])

def write(k, v):
    new = "v || ' ' || excluded.v" if lists else "excluded.v"
    db.execute(f"INSERT INTO kv VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = {new}",
               (k, str(v) if lists else v))

def run(f, value):
    if f == "txn":  # [["r", k, null] | ["append" or "w", k, v], ...]: fill in the reads
        for mop in value:
            if mop[0] == "r":
                mop[2] = read(mop[1])
            else:
                write(mop[1], mop[2])
        return value
    k, v = value  # cas-register: read [k, null], write [k, v], cas [k, [old, new]]
    if f == "read":
        return [k, read(k)]
    if f == "write":
        write(k, v)
    elif db.execute("UPDATE kv SET v = ? WHERE k = ? AND v = ?", (v[1], k, v[0])).rowcount == 0:
        raise LookupError("the register held another value")
    return value

for line in sys.stdin:
    request = json.loads(line)
    if request["f"] == "hello":
        lists = request["workload"] == "list-append"
        answer = {"type": "ok", "version": 1}
    elif request["f"] == "setup":  # once per run, before the clients start
        db.executescript("PRAGMA journal_mode = WAL; DROP TABLE IF EXISTS kv;"
                         "CREATE TABLE kv (k INTEGER PRIMARY KEY, v)")
        answer = {"type": "ok"}
    else:
        try:
            db.execute("BEGIN IMMEDIATE")
            value = run(request["f"], request["value"])
        except (sqlite3.Error, LookupError) as e:  # not committed
            if db.in_transaction:
                db.execute("ROLLBACK")
            answer = {"type": "fail", "error": str(e)}
        else:
            try:
                db.execute("COMMIT")
                answer = {"type": "ok", "value": value}
            except sqlite3.Error as e:  # committed or not: unknown
                answer = {"type": "info", "error": str(e)}
    print(json.dumps(answer), flush=True)
