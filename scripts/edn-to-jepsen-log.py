#!/usr/bin/env python3
"""A single-register cas-register history in Jepsen EDN (one op a line, as
`isocheck gen lwt --keys 1` writes it) to Jepsen's text log, the format
Porcupine's etcd test reads (the reverse of jepsen-log-to-edn.py), so that
Porcupine can be timed on the same histories as isocheck.

    scripts/edn-to-jepsen-log.py history.edn > history.log

An `:info` completion is written as Jepsen writes it; Porcupine's parser
matches no such line, so the op stays open to the end of the history: it may
take effect at any point after its invocation, or never, as in isocheck.
"""
import re
import sys

OP = re.compile(r":type :(\w+), :process (\d+), :f :(\w+), :value (nil|-?\d+|\[-?\d+ -?\d+\])")


def main(path):
    out = sys.stdout
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = OP.search(line)
            if not m:
                if line.strip():
                    sys.exit(f"{path}:{n}: not a single-register op: {line.strip()}")
                continue
            typ, proc, fn, value = m.groups()
            out.write(f"INFO  jepsen.util - {proc}\t:{typ}\t:{fn}\t{value}\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
