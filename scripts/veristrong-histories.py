#!/usr/bin/env python3
"""Lists VeriStrong's benchmark histories with what scripts/veristrong-bench.sh
prints beside the verdicts: format, bytes, sessions, committed transactions,
writes, and how many of those writes repeat a value already written to their
key (the writes isocheck refuses today with `duplicate_write`).

    scripts/veristrong-histories.py PATH ...

Each PATH is a history, or a directory whose histories (every one below
it) are listed.

A history is a dbcop `history.bincode` file or a directory of Cobra
`T<n>.log` client logs (VeriStrong's variant, where the logged value names
the version). Output is tab-separated, one history a line:
path, format, bytes, sessions, txns, writes, repeated.

This reader is independent of isocheck's, so that the counts check it: it
follows the layouts documented in crates/isocheck/src/history/formats/.
For dbcop, the implicit initial transaction writes 0 to every key, so a
write of 0 repeats it; for Cobra logs the initial version has no value.
"""

import os
import struct
import sys


def dbcop(path):
    """Sessions, committed txns and the (key, value) of each successful
    write of a dbcop history, as dbcop's bincode-1 `History` holds them."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 5 * 8  # id, n_node, n_variable, n_transaction, n_event

    def u64():
        nonlocal pos
        (v,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        return v

    for _ in range(3):  # info, start and end strings
        length = u64()
        pos += length
    sessions = u64()
    txns, writes = 0, []
    for _ in range(sessions):
        for _ in range(u64()):
            events = []
            for _ in range(u64()):
                write, key, value, ok = struct.unpack_from("<?QQ?", data, pos)
                pos += 18
                if write and ok:
                    events.append((key, value))
            committed = data[pos]
            pos += 1
            if committed:
                txns += 1
                writes += events
    if pos != len(data):
        raise ValueError(f"{path}: {len(data) - pos} bytes follow the history")
    # The initial transaction's write of 0, once per key written.
    initial = {(key, 0) for key, _ in writes}
    return sessions, txns, writes, initial


def cobra(path):
    """Sessions, txns and the (key, value) of each write of a directory of
    Cobra logs: big-endian records S txn, W id key value, R txn id key
    value, C txn."""
    logs = sorted(n for n in os.listdir(path) if n.endswith(".log"))
    txns, writes = 0, []
    for name in logs:
        with open(os.path.join(path, name), "rb") as f:
            data = f.read()
        pos = 0
        while pos < len(data):
            tag = chr(data[pos])
            pos += 1
            fields = {"S": 1, "C": 1, "W": 3, "R": 4}[tag]
            rec = struct.unpack_from(f">{fields}Q", data, pos)
            pos += 8 * fields
            if tag == "C":
                txns += 1
            elif tag == "W":
                writes.append((rec[1], rec[2]))
    return len(logs), txns, writes, set()


def describe(path):
    if os.path.isdir(path):
        fmt, read = "cobra", cobra
        size = sum(
            os.path.getsize(os.path.join(path, n))
            for n in os.listdir(path)
            if n.endswith(".log")
        )
    else:
        fmt, read, size = "dbcop", dbcop, os.path.getsize(path)
    sessions, txns, writes, seen = read(path)
    repeated = 0
    for w in writes:
        repeated += w in seen
        seen.add(w)
    return [path, fmt, size, sessions, txns, len(writes), repeated]


def histories(root):
    """Every history under root, in path order: bincode files and
    directories holding .log files."""
    found = []
    for dirpath, _, files in os.walk(root):
        if "history.bincode" in files:
            found.append(os.path.join(dirpath, "history.bincode"))
        elif any(n.endswith(".log") for n in files):
            found.append(dirpath)
    return sorted(found)


def main(args):
    if not args:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for arg in args:
        arg = os.path.normpath(arg)
        # A directory of logs is one history; any other holds histories.
        paths = [arg]
        if os.path.isdir(arg) and not any(
            n.endswith(".log") for n in os.listdir(arg)
        ):
            paths = histories(arg)
        for path in paths:
            print("\t".join(str(v) for v in describe(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
