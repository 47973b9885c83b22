#!/usr/bin/env python3
"""A list-append history of N transactions, all concurrent (every invocation
before any completion), whose wr edges close one G1c cycle through all of
them: transaction i reads key i-1 (seeing transaction i-1's append) and
appends to key i. Used for the "Real-time order" benchmark in BENCHMARKS.md.

Usage: scripts/all_concurrent_cycle.py N > history.edn
"""
import sys


def main():
    n = int(sys.argv[1])
    out = sys.stdout
    index = 0
    for ty, read in (("invoke", "nil"), ("ok", "[1]")):
        for i in range(n):
            out.write(
                f"{{:type :{ty}, :f :txn, :value [[:r {(i - 1) % n} {read}] "
                f"[:append {i} 1]], :process {i}, :time {index}, :index {index}}}\n"
            )
            index += 1


if __name__ == "__main__":
    main()
