//! Elle-like artifacts in a directory: `<Type>.txt` with Elle's explanation
//! of every cycle of that type, and `<Type>/<i>.dot` (plus `<i>.svg` when
//! Graphviz's `dot` is installed) drawing each cycle; the facade adds the
//! HTML report as `index.html`. Ops and values are whole in them unless
//! longer than anyone reads (`explain::clip`).
//!
//! These names are the artifacts isocheck owns in a `--directory`: before a
//! run moves its own in, [`remove_artifacts`] removes those of an earlier
//! run (so that the directory describes this run only), and nothing else —
//! a file of the user's with another name stays.

use super::explain::{
    clip, cycle_explanation, names, step_name, txn_text, value_text, FILE_OP_CHARS,
    FILE_VALUE_CHARS,
};
use crate::check::lattice;
use crate::check::{Analysis, Entry, FoundCycle, Verdict};
use crate::graph::Rel;
use crate::history::History;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes each cycle's text, DOT and (when Graphviz's `dot` is on the
/// `PATH`) SVG into `dir`; the warnings of SVGs `dot` could not render.
pub fn write(
    dir: &Path,
    history: &History,
    analysis: &Analysis,
    verdict: &Verdict,
) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let dot = find_dot();
    let mut warnings = Vec::new();
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
                warnings.extend(render_svg(dot, &path, &sub.join(format!("{i}.svg"))));
            }
        }
    }
    Ok(warnings)
}

/// The page every `--directory` holds.
pub const INDEX: &str = "index.html";

/// Removes from `dir` the artifacts a run of isocheck writes there (see
/// [`is_artifact`]), and the `<Type>/` directories they leave empty.
pub fn remove_artifacts(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() && is_type(&entry.file_name()) {
            remove_drawings(&path)?;
        } else if kind.is_file() && is_artifact(dir, &path) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Removes the cycle drawings in a `<Type>/` directory, and the directory
/// once empty.
fn remove_drawings(sub: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(sub)? {
        let entry = entry?;
        if entry.file_type()?.is_file() && is_drawing(&entry.file_name()) {
            std::fs::remove_file(entry.path())?;
        }
    }
    // Not empty: it holds a file of the user's, which stays.
    let _ = std::fs::remove_dir(sub);
    Ok(())
}

/// Whether `path` names an artifact isocheck writes in `dir`: `index.html`,
/// `<Type>.txt`, or `<Type>/<i>.dot` or `.svg`, `<Type>` an anomaly type.
pub fn is_artifact(dir: &Path, path: &Path) -> bool {
    let (Some(name), Some(parent)) = (path.file_name(), path.parent()) else {
        return false;
    };
    if parent == dir {
        let name = name.to_string_lossy();
        let txt = name.strip_suffix(".txt");
        return name == INDEX || txt.is_some_and(lattice::is_known_anomaly);
    }
    parent.parent() == Some(dir) && parent.file_name().is_some_and(is_type) && is_drawing(name)
}

fn is_type(name: &std::ffi::OsStr) -> bool {
    lattice::is_known_anomaly(&name.to_string_lossy())
}

/// `<i>.dot` or `<i>.svg`.
fn is_drawing(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()) && matches!(ext, "dot" | "svg")
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
            Rel::Ww | Rel::Wr | Rel::Rw | Rel::Rwp => {
                format!(
                    "{} {}",
                    step_name(h, d),
                    value_text(h, d.key, FILE_VALUE_CHARS)
                )
            }
            Rel::Process => format!("process {}", h.txn(d.from).process),
            Rel::Realtime => "realtime".to_string(),
        };
        let color = match d.rel {
            Rel::Ww => "#C02700",
            Rel::Wr => "#C000A5",
            Rel::Rw | Rel::Rwp => "#5B00C0",
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
fn render_svg(dot: &Path, input: &Path, output: &Path) -> Option<String> {
    let result = Command::new(dot)
        .arg("-Tsvg")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output();
    match result {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "dot could not render {}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("cannot run {}: {e}", dot.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_are_the_names_isocheck_writes() {
        let dir = Path::new("/out");
        for own in ["index.html", "G1c.txt", "G1c/0.dot", "G-single-item/12.svg"] {
            assert!(is_artifact(dir, &dir.join(own)), "{own}");
        }
        for other in [
            "history.edn",
            "notes.txt",
            "G1c/notes.txt",
            "G1c/.dot",
            "notes/0.dot",
            "G1c/0/0.dot",
            "index.html/0.dot",
        ] {
            assert!(!is_artifact(dir, &dir.join(other)), "{other}");
        }
    }
}
