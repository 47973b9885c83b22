"""Writes a Jepsen EDN history (one op map a line, `;` comment lines) as JSON
the way elle-cli reads it: one object a line, keywords as strings without
the colon (`:invoke` -> "invoke", `[:w 0 1]` -> ["w",0,1]), map keys as
strings (`{0 10}` -> {"0":10}), sets as arrays, `nil` as null. It reads the
plain EDN of the fixtures (maps, vectors, lists, sets, keywords, integers,
strings, nil, booleans), nothing more. The JSON twins of
`fixtures/jepsen/*.edn` were written by it.

Usage: python3 scripts/edn-history-to-json.py IN.edn > OUT.json"""
import json, re, sys

TOKEN = re.compile(r'\s*(?:,\s*)*(#\{|[{}\[\]()]|"(?:[^"\\]|\\.)*"|[^\s,{}\[\]()"]+)')


def tokens(text):
    pos = 0
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip(" \t\n,"):
                raise ValueError("cannot read EDN at %r" % text[pos:pos + 20])
            return
        pos = m.end()
        yield m[1]


def atom(tok):
    if tok.startswith('"'):
        return json.loads(tok)
    if tok.startswith(":"):
        return tok[1:]
    if tok in ("nil", "true", "false"):
        return {"nil": None, "true": True, "false": False}[tok]
    if re.fullmatch(r"-?\d+", tok):
        return int(tok)
    raise ValueError("not plain EDN: %r" % tok)


def key(value):
    return value if isinstance(value, str) else json.dumps(value)


CLOSERS = {"{": "}", "[": "]", "(": ")", "#{": "}"}


def form(toks):
    """One EDN form from the token list (consumed from the front), as a
    JSON value."""
    tok = toks.pop(0)
    if tok not in CLOSERS:
        return atom(tok)
    items = []
    while toks and toks[0] != CLOSERS[tok]:
        items.append(form(toks))
    if not toks:
        raise ValueError("%s never closed" % tok)
    toks.pop(0)
    if tok == "{":
        return {key(k): v for k, v in zip(items[::2], items[1::2])}
    return items


def convert(lines):
    for line in lines:
        if line.strip() and not line.lstrip().startswith(";"):
            yield json.dumps(form(list(tokens(line))), separators=(",", ":")) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        sys.stdout.writelines(convert(f))
