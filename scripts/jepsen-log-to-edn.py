"""Converts a Jepsen text log of a cas-register test (the `jepsen.util` lines
Knossos's and Porcupine's etcd test data hold, e.g. Porcupine's
`test_data/jepsen/etcd_000.log`) into a Jepsen EDN history, one op a line.

    INFO  jepsen.util - 2	:invoke	:cas	[3 0]    ->  {:type :invoke, :f :cas, :value [3 0], :process 2, ...}

A completion whose value is `:timed-out` (`:info :write :timed-out`,
`:fail :read :timed-out`) carries its invocation's value, as Jepsen's history
does, with `:error :timed-out`. Ops the log leaves open stay open (isocheck
reads them as `:info`). Lines of any other shape are skipped; a completion
without an open invocation is an error.

Usage: python3 scripts/jepsen-log-to-edn.py LOG [OUT.edn]
       python3 scripts/jepsen-log-to-edn.py --dir LOGDIR OUTDIR"""
import os, re, sys

LINE = re.compile(r"^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(\w[\w-]*)\s+(.*?)\s*$")


def convert(lines):
    """The EDN lines of one log's op lines, in log order."""
    out, open_values = [], {}
    for number, line in enumerate(lines, 1):
        m = LINE.match(line)
        if not m:
            continue
        process, kind, f, value = int(m[1]), m[2], m[3], m[4]
        error = ""
        if kind == "invoke":
            open_values[process] = value
        else:
            if process not in open_values:
                raise ValueError("line %d: %s completes no open op of process %d" % (number, kind, process))
            invoked = open_values.pop(process)
            if value == ":timed-out":
                value, error = invoked, ", :error :timed-out"
        index = len(out)
        out.append("{:type :%s, :f :%s, :value %s, :process %d, :time %d, :index %d%s}\n"
                   % (kind, f, value, process, index, index, error))
    return out


def convert_file(src, dst):
    with open(src) as f:
        lines = convert(f)
    with open(dst, "w") as f:
        f.writelines(lines)


def main(args):
    if len(args) == 3 and args[0] == "--dir":
        os.makedirs(args[2], exist_ok=True)
        for name in sorted(os.listdir(args[1])):
            if name.endswith(".log"):
                convert_file(os.path.join(args[1], name), os.path.join(args[2], name[:-4] + ".edn"))
    elif len(args) in (1, 2):
        if len(args) == 2:
            convert_file(args[0], args[1])
        else:
            with open(args[0]) as f:
                sys.stdout.writelines(convert(f))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
