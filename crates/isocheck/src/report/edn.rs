//! Elle's result map as EDN.

use super::result::R;

/// A result map, printed as Elle prints it: the top-level keys one per
/// line, and under `:anomalies` one entry per line. Ops are printed as the
/// history wrote them.
pub(crate) fn print(tree: &R<'_>) -> String {
    let mut out = String::new();
    let R::Map(top) = tree else {
        write(tree, &mut out);
        return out;
    };
    out.push('{');
    for (i, (k, v)) in top.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n ");
        }
        write(k, &mut out);
        match v {
            R::Map(types) if !types.is_empty() => {
                out.push_str("\n {");
                write_anomalies(types, &mut out);
                out.push('}');
            }
            _ => {
                out.push(' ');
                write(v, &mut out);
            }
        }
    }
    out.push('}');
    out
}

/// The body of the `:anomalies` map: each type on its line, then its
/// entries one per line.
fn write_anomalies(types: &[(R<'_>, R<'_>)], out: &mut String) {
    for (i, (t, entries)) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n  ");
        }
        write(t, out);
        match entries {
            R::Vec(items) => {
                out.push_str("\n  [");
                for (j, e) in items.iter().enumerate() {
                    crate::limits::tick();
                    if j > 0 {
                        out.push_str("\n   ");
                    }
                    write(e, out);
                }
                out.push(']');
            }
            other => {
                out.push(' ');
                write(other, out);
            }
        }
    }
}

/// Writes a value on one line, as Clojure's `pr` does (`, ` between map
/// entries, spaces between elements).
pub(crate) fn write(v: &R<'_>, out: &mut String) {
    match v {
        R::Nil => out.push_str("nil"),
        R::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        R::Int(i) => out.push_str(&i.to_string()),
        R::Kw(k) => {
            out.push(':');
            out.push_str(k);
        }
        R::Sym(s) => out.push_str(s),
        R::Edn(text) => out.push_str(text),
        R::Vec(items) => write_seq(items, "[", "]", out),
        R::Set(items) => write_seq(items, "#{", "}", out),
        R::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(k, out);
                out.push(' ');
                write(v, out);
            }
            out.push('}');
        }
    }
}

fn write_seq(items: &[R<'_>], open: &str, close: &str, out: &mut String) {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        crate::limits::tick();
        if i > 0 {
            out.push(' ');
        }
        write(item, out);
    }
    out.push_str(close);
}
