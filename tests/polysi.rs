//! The PolySI paper's datasets get their known verdicts under snapshot
//! isolation (`../shared/corpus/PolySIHistories/SOURCES.md`): PostgreSQL
//! and CobraBench histories satisfy it, the Dgraph, Galera and Yugabyte
//! violations do not, each named as an anomaly. Every history of the two
//! figures is checked.

mod common;

use isocheck::history::{self, LoadOptions, MopKind, MopValue, Val};
use isocheck::internals::check::{self, CheckOptions, Validity};
use std::path::Path;

/// The verdict under snapshot isolation of `rel` in the corpus at `dir`.
fn check_si(dir: &Path, rel: &str) -> (Validity, Vec<String>) {
    let path = dir.join("PolySIHistories").join(rel);
    let h =
        history::load(&path, &LoadOptions::default()).unwrap_or_else(|d| panic!("{rel}: {d:?}"));
    let opts = CheckOptions {
        consistency_models: Some(vec!["snapshot-isolation".into()]),
        ..CheckOptions::default()
    };
    let a = check::analyze(&h, &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    (v.valid, v.anomaly_types().map(String::from).collect())
}

#[test]
fn violations_are_named() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    for (rel, types) in [
        ("violations/dgraph/history.bincode", ["G-single-item"]),
        ("violations/galera/galera.txt", ["lost-update"]),
        ("violations/yugabyte/yugabyte.txt", ["G-single-item"]),
    ] {
        assert_eq!(
            check_si(&dir, rel),
            (Validity::False, types.map(String::from).to_vec()),
            "{rel}"
        );
    }
}

/// Every history of fig7 and fig8_9_10: the bincode file when there is
/// one, else the Cobra log directory.
fn valid_histories(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for fig in ["fig7", "fig8_9_10"] {
        let Ok(entries) = std::fs::read_dir(dir.join("PolySIHistories").join(fig)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let hist = format!("{fig}/{name}/hist-00000");
            let bincode = format!("{hist}/history.bincode");
            let has_bincode = dir.join("PolySIHistories").join(&bincode).exists();
            out.push(if has_bincode { bincode } else { hist });
        }
    }
    out.sort();
    out
}

#[test]
fn valid_histories_satisfy_snapshot_isolation() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let all = valid_histories(&dir);
    assert_eq!(all.len(), 37, "31 fig7 and 6 fig8_9_10 histories");
    for rel in all {
        // `_1_uniform` among them: see `a_read_only_log_is_decided`.
        assert_eq!(check_si(&dir, &rel), (Validity::True, Vec::new()), "{rel}");
    }
}

/// fig7's `_1_uniform` history is read-only: every transaction reads the
/// initial state. A log of every committed transaction leaves nothing else
/// to read, so it is decided (PolySI says valid too), not Elle's
/// `:empty-transaction-graph`.
#[test]
fn a_read_only_log_is_decided() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let rel = "fig7/20_100_15_10000_1_uniform/hist-00000/history.bincode";
    let path = dir.join("PolySIHistories").join(rel);
    let h = history::load(&path, &LoadOptions::default()).expect("loads");
    assert!(h.complete_log);
    let writes = h.mops.iter().filter(|m| m.kind != MopKind::Read).count();
    let initial = h
        .mops
        .iter()
        .filter(|m| m.value() == MopValue::Val(Val::NIL));
    assert_eq!((writes, initial.count()), (0, h.mops.len()), "read-only");
    for models in [None, Some(vec!["snapshot-isolation".to_string()])] {
        let opts = CheckOptions {
            consistency_models: models,
            ..CheckOptions::default()
        };
        let a = check::analyze(&h, &opts).expect("valid options");
        let v = check::verdict::verdict(&a);
        assert_eq!(v.valid, Validity::True, "{:?}", v.anomalies);
    }
}

/// The human reports of three corpus violations with unknown write orders,
/// under the default strict-serializable, by path, from the corpus at `dir`.
fn forced_reports(dir: &Path) -> Vec<(&'static str, String)> {
    let rels = [
        "PolySIHistories/violations/yugabyte/yugabyte.txt",
        "PolySIHistories/violations/dgraph/history.bincode",
        "IsoVista/history/bugs/dgraph_si.txt",
    ];
    rels.into_iter()
        .map(|rel| {
            let path = dir.join(rel);
            let h = history::load(&path, &LoadOptions::default()).expect("loads");
            let a = check::analyze(&h, &CheckOptions::default()).expect("valid options");
            let v = check::verdict::verdict(&a);
            (rel, isocheck::report::human::render(&h, &a, &v, false))
        })
        .collect()
}

/// Each forced anomaly's headline on three corpus violations with unknown
/// write orders, under the default strict-serializable: these formats have
/// no real time, so what the cases prove is snapshot isolation's violation,
/// not strong snapshot isolation's (the model the solver decided).
#[test]
fn forced_headlines_name_the_proven_model() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let reports = forced_reports(&dir);
    let mut out = String::new();
    for (rel, text) in reports {
        let words: Vec<&str> = text.split_whitespace().collect();
        out.push_str(&format!("{rel}: {}\n", words[..3].join(" ")));
        for (i, _) in words.iter().enumerate().filter(|(_, w)| **w == "whatever") {
            let end = (i..words.len())
                .find(|&j| words[j].ends_with('.'))
                .unwrap_or(i);
            out.push_str(&format!("  {}\n", words[i..=end].join(" ")));
        }
    }
    insta::assert_snapshot!("forced_headlines", out);
}

/// Each case of a forced anomaly shows the shortest cycle that proves what
/// the anomaly's name does, and is named by it: in IsoVista's Dgraph one
/// case's is a G1c, under a G-single-item headline; PolySI's Dgraph's
/// second case is a 3-transaction G-single-item (the first cycle the
/// search met there had 6).
#[test]
fn forced_cases_show_their_shortest_cycles() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    insta::assert_snapshot!("forced_case_cycles", report_lines(&dir, case_cycles));
}

/// Each case of a human report's forced anomalies: the name of its cycle
/// and how many transactions the cycle's `Let:` lists.
fn case_cycles(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut case: Option<(String, usize)> = None;
    for line in text.lines() {
        if let Some(head) = line.strip_suffix(" cycle follows:") {
            let name = head.rsplit(' ').next().unwrap_or("");
            case = Some((name.to_string(), 0));
        } else if let Some((name, txns)) = case.as_mut() {
            if line.trim() == "Then:" {
                out.push(format!("{name} of {txns} transactions"));
                case = None;
            } else if line.trim_start().starts_with('T') && line.contains(" = {") {
                *txns += 1;
            }
        }
    }
    out
}

/// The lines `pick` takes from each forced report, under its path.
fn report_lines(dir: &Path, pick: fn(&str) -> Vec<String>) -> String {
    let mut out = String::new();
    for (rel, text) in forced_reports(dir) {
        out.push_str(&format!("{rel}:\n"));
        for s in pick(&text) {
            out.push_str(&format!("  {s}\n"));
        }
    }
    out
}

/// The sentences the forced anomalies' help gives for orders no case
/// chooses, on the same violations: Yugabyte's pairs that wrote several
/// keys (a mixed order is a G0 cycle) and, in IsoVista's Dgraph history, a
/// step whose order a read followed by a write of the same key forces (in
/// the case whose shortest cycle is a G1c, not the G-single-item its other
/// case closes). Each pair line is kept too, so that the keys named can be
/// checked.
#[test]
fn forced_explanations_say_why_orders_hold() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    insta::assert_snapshot!(
        "forced_order_sentences",
        report_lines(&dir, order_sentences)
    );
}

/// The pair lines, mixed-order lines and noted steps of a human report,
/// each on one line, in the order they appear.
fn order_sentences(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let to_end = |end: &str| {
            let j = (i..words.len())
                .find(|&j| words[j].ends_with(end))
                .unwrap_or(i);
            words[i..=j].join(" ")
        };
        if *w == "The" && words.get(i + 1) == Some(&"transactions") {
            out.push(to_end("order."));
        } else if *w == "A" && words.get(i + 1) == Some(&"pair's") {
            out.push(to_end("case."));
        } else if *w == "-" {
            let step = to_end(".").replace(": a contradiction!", "");
            if step.contains("forbids G1c") {
                out.push(step);
            }
        }
    }
    out
}
