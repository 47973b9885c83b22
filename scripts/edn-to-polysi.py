#!/usr/bin/env python3
"""Writes an rw-register EDN history (one op per line, as `isocheck gen
rw-register` writes it) as PolySI text, the format AWDIT reads as "plume":
`r(key,value,session,txn)`, one line per micro-op of each :ok transaction,
a process its session, nil read as 0 (the initial value). For running AWDIT
on isocheck's generated histories (BENCHMARKS.md); integer keys and values
only, values above 0, no :info writes read.
    scripts/edn-to-polysi.py < history.edn > history.plume
"""
import re
import sys

MOP = re.compile(r"\[:([rw]) (-?\d+) (nil|-?\d+)\]")
PROCESS = re.compile(r":process (\d+)")
VALUE = re.compile(r":value \[(.*)\]")


def main():
    txn = 0
    out = sys.stdout
    for line in sys.stdin:
        if ":type :ok" not in line:
            continue
        process = PROCESS.search(line).group(1)
        for kind, key, value in MOP.findall(VALUE.search(line).group(1)):
            value = "0" if value == "nil" else value
            out.write(f"{kind}({key},{value},{process},{txn})\n")
        txn += 1


main()
