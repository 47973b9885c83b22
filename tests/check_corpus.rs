//! Verdicts on the real histories of the shared corpus against the verdicts
//! recorded beside them: Elle 0.2.7 re-run under six model sets
//! (`elle-verdicts.tsv`), and the `results.edn` Jepsen wrote when each run
//! was checked. Every difference is listed, with its reason, in
//! `tests/data/elle-differences.tsv` and asserted there.

mod common;

use isocheck::check::{self, CheckOptions, Validity};
use isocheck::history::edn::{read_all, Kind, Node};
use isocheck::history::{self, History, LoadOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// `:valid?`, `:anomaly-types` and `:not`, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Answer {
    valid: String,
    types: String,
    not: String,
}

fn ours(h: &History, models: Option<&str>) -> Answer {
    let opts = CheckOptions {
        consistency_models: models.map(|m| vec![m.to_string()]),
        solve: check::SolveOptions {
            enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let a = check::analyze(h, &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    Answer {
        valid: match v.valid {
            Validity::True => "true",
            Validity::False => "false",
            Validity::Unknown => "unknown",
        }
        .to_string(),
        types: v.anomaly_types().collect::<Vec<_>>().join(","),
        not: v.not.iter().copied().collect::<Vec<_>>().join(","),
    }
}

/// `(file, models)` → our answer where it differs from Elle's, and why.
fn differences(text: &str) -> BTreeMap<(String, String), (Answer, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 6, "malformed line: {l}");
            let answer = Answer {
                valid: c[2].into(),
                types: c[3].into(),
                not: c[4].into(),
            };
            ((c[0].into(), c[1].into()), (answer, c[5].into()))
        })
        .collect()
}

const DIFFERENCES: &str = include_str!("data/elle-differences.tsv");

#[test]
fn elle_verdicts_under_six_models() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let tsv = std::fs::read_to_string(dir.join("elle-verdicts.tsv")).expect("elle-verdicts.tsv");
    let mut rows: BTreeMap<String, Vec<(String, Answer)>> = BTreeMap::new();
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let elle = Answer {
            valid: c[3].into(),
            types: c[4].into(),
            not: c[5].into(),
        };
        rows.entry(c[0].into())
            .or_default()
            .push((c[2].into(), elle));
    }
    let diffs = differences(DIFFERENCES);
    let mut used = 0;
    let mut failures = Vec::new();
    for (file, runs) in &rows {
        let h = history::load(&dir.join(file), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{file}: {e:?}"));
        for (models, elle) in runs {
            let got = ours(&h, Some(models));
            let want = match diffs.get(&(file.clone(), models.clone())) {
                Some((answer, _)) => {
                    used += 1;
                    answer
                }
                None => elle,
            };
            if &got != want {
                failures.push(format!("{file}\t{models}\t{got:?}\twant {want:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let listed = diffs
        .keys()
        .filter(|(f, _)| !f.starts_with("results:"))
        .count();
    assert_eq!(used, listed, "a listed difference matches no corpus row");
}

/// The Elle result map inside a Jepsen `results.edn`: the checker entry that
/// has `:anomaly-types`, or the workload checker (`:workload`, `:la`, `:rw`).
fn elle_result<'a>(results: &'a Node<'a>) -> Option<&'a Node<'a>> {
    let Kind::Map(entries) = &results.kind else {
        return None;
    };
    entries.iter().find_map(|(k, v)| match (&k.kind, &v.kind) {
        (Kind::Keyword("workload" | "la" | "rw" | "elle"), Kind::Map(_)) => Some(v),
        _ => None,
    })
}

fn get<'a>(map: &'a Node<'a>, key: &str) -> Option<&'a Node<'a>> {
    let Kind::Map(entries) = &map.kind else {
        return None;
    };
    entries
        .iter()
        .find(|(k, _)| k.kind == Kind::Keyword(key))
        .map(|(_, v)| v)
}

fn keywords(n: Option<&Node>) -> String {
    let items = match n.map(|n| &n.kind) {
        Some(Kind::List(xs) | Kind::Vector(xs) | Kind::Set(xs)) => xs.as_slice(),
        _ => &[],
    };
    let mut names: Vec<&str> = items
        .iter()
        .filter_map(|x| match x.kind {
            Kind::Keyword(k) => Some(k),
            _ => None,
        })
        .collect();
    names.sort_unstable();
    names.join(",")
}

fn recorded(result: &Node) -> Answer {
    let valid = match get(result, "valid?").map(|n| &n.kind) {
        Some(Kind::Bool(true)) => "true",
        Some(Kind::Bool(false)) => "false",
        _ => "unknown",
    };
    Answer {
        valid: valid.into(),
        types: keywords(get(result, "anomaly-types")),
        not: keywords(get(result, "not")),
    }
}

fn results_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            results_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "results.edn")
            && p.with_file_name("history.edn").is_file()
        {
            out.push(p);
        }
    }
}

#[test]
fn results_edn_beside_histories() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    results_files(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 50, "only {} results.edn found", files.len());
    let diffs = differences(DIFFERENCES);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let forms = read_all(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let result = forms.first().and_then(elle_result);
        let Some(result) = result else {
            panic!("{}: no Elle result map", path.display());
        };
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .with_file_name("history.edn");
        let rel = rel.to_string_lossy().to_string();
        let h = history::load(&dir.join(&rel), &LoadOptions::default()).expect("loads");
        // The runs used Elle's default model, strict-serializable; older
        // Elle versions computed `:not` differently, so compare the rest.
        let mut got = ours(&h, None);
        let mut want = recorded(result);
        got.not.clear();
        want.not.clear();
        if let Some((answer, _)) = diffs.get(&(format!("results:{rel}"), String::new())) {
            want = answer.clone();
        }
        if got != want {
            failures.push(format!("{rel}\t{got:?}\twant {want:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
