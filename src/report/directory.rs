//! Elle-like artifacts in a directory: `<Type>.txt` with Elle's explanation
//! of every cycle of that type, and `<Type>/<i>.dot` (plus `<i>.svg` when
//! Graphviz's `dot` is installed) drawing each cycle. Ops and values are
//! whole in them unless longer than anyone reads (`explain::clip`).

use super::explain::{
    clip, cycle_explanation, names, txn_text, value_text, FILE_OP_CHARS, FILE_VALUE_CHARS,
};
use crate::check::{Analysis, Entry, FoundCycle, Verdict};
use crate::graph::Rel;
use crate::history::History;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn write(
    dir: &Path,
    history: &History,
    analysis: &Analysis,
    verdict: &Verdict,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let dot = find_dot();
    for (t, entries) in &verdict.anomalies {
        // A cycle every write order closes is drawn once per order.
        let cycles: Vec<&FoundCycle> = entries
            .iter()
            .flat_map(|e| match e {
                Entry::Cycle(i) => vec![&analysis.cycles[*i]],
                Entry::Forced(i) => analysis.forced[*i].cases.iter().map(|c| &c.cycle).collect(),
                _ => Vec::new(),
            })
            .collect();
        if cycles.is_empty() {
            continue;
        }
        // Elle's `write-cycles!`: each cycle headed `<Type> #<i>`, joined
        // by two blank lines.
        let text: Vec<String> = cycles
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{t} #{i}\n{}", cycle_explanation(history, analysis, c)))
            .collect();
        std::fs::write(dir.join(format!("{t}.txt")), text.join("\n\n\n"))?;
        let sub = dir.join(t);
        std::fs::create_dir_all(&sub)?;
        for (i, c) in cycles.iter().enumerate() {
            crate::limits::tick();
            let path = sub.join(format!("{i}.dot"));
            std::fs::write(&path, graphviz(history, analysis, c, &format!("{t} #{i}")))?;
            if let Some(dot) = &dot {
                render_svg(dot, &path, &sub.join(format!("{i}.svg")));
            }
        }
    }
    Ok(())
}

/// A cycle as a Graphviz digraph: transactions as nodes `T1`, `T2`, …
/// (their op in the tooltip), each step an edge labelled with its relation
/// and key.
fn graphviz(h: &History, a: &Analysis, c: &FoundCycle, title: &str) -> String {
    let txns = a.cycle_txns(c);
    let n = txns.len().saturating_sub(1);
    let names = names(n);
    let mut s = String::new();
    let _ = writeln!(s, "digraph {} {{", quote(title));
    let _ = writeln!(s, "  label={};", quote(title));
    s.push_str("  node [shape=box, fontname=\"monospace\"];\n");
    for (i, &t) in txns[..n].iter().enumerate() {
        let op = h.op(h.txn(t).op());
        let label = format!(
            "{}\nindex {}, process {}",
            names[i],
            op.index,
            h.txn(t).process
        );
        let tooltip = clip(&txn_text(h, t), FILE_OP_CHARS).into_owned();
        let _ = writeln!(
            s,
            "  {} [label={}, tooltip={}];",
            names[i],
            quote(&label),
            quote(&tooltip)
        );
    }
    for (i, d) in a.cycle_steps(c).enumerate() {
        let label = match d.rel {
            Rel::Ww | Rel::Wr | Rel::Rw => {
                format!(
                    "{} {}",
                    d.rel.name(),
                    value_text(h, d.key, FILE_VALUE_CHARS)
                )
            }
            Rel::Process => format!("process {}", h.txn(d.from).process),
            Rel::Realtime => "realtime".to_string(),
        };
        let color = match d.rel {
            Rel::Ww => "#C02700",
            Rel::Wr => "#C000A5",
            Rel::Rw => "#5B00C0",
            Rel::Process => "#00558C",
            Rel::Realtime => "#0050C0",
        };
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, color=\"{color}\", fontcolor=\"{color}\"];",
            names[i % n.max(1)],
            names[(i + 1) % n.max(1)],
            quote(&label)
        );
    }
    s.push_str("}\n");
    s
}

/// A Graphviz quoted string.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => {}
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Graphviz's `dot` on `PATH`, if installed.
fn find_dot() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| [d.join("dot"), d.join("dot.exe")])
        .find(|p| p.is_file())
}

/// Runs `dot -Tsvg`; a failure is a warning, never a failed check.
fn render_svg(dot: &Path, input: &Path, output: &Path) {
    let result = Command::new(dot)
        .arg("-Tsvg")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output();
    match result {
        Ok(o) if o.status.success() => {}
        // A closed or full stderr loses the warning, nothing more.
        Ok(o) => drop(writeln!(
            std::io::stderr(),
            "warning: dot could not render {}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => drop(writeln!(
            std::io::stderr(),
            "warning: cannot run {}: {e}",
            dot.display()
        )),
    }
}
