//! Verdicts on the real histories of the shared corpus against the verdicts
//! recorded beside them: Elle 0.2.7 re-run under six model sets
//! (`elle-verdicts.tsv`), and the `results.edn` Jepsen wrote when each run
//! was checked. Every difference is listed, with its reason, in
//! `tests/data/elle-differences.tsv` and asserted there; a difference that
//! is a garbage read must vanish under `--elle-compat`.

mod common;

use isocheck::history::{self, History, LoadOptions};
use isocheck::internals::check::{self, CheckOptions};
use isocheck::store;
use std::collections::BTreeMap;

/// `:valid?`, `:anomaly-types` and `:not`, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Answer {
    valid: String,
    types: String,
    not: String,
}

fn ours(h: &History, models: Option<&str>) -> Answer {
    answer(h, models, false)
}

fn answer(h: &History, models: Option<&str>, elle_compat: bool) -> Answer {
    let opts = CheckOptions {
        consistency_models: models.map(|m| vec![m.to_string()]),
        elle_compat,
        solve: check::SolveOptions {
            enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let a = check::analyze(h, &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    Answer {
        valid: v.valid.name().to_string(),
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
                Some((listed, _)) => {
                    used += 1;
                    // Garbage reads are the difference --elle-compat removes.
                    if listed.types.split(',').any(|t| t == "garbage-read") {
                        let as_elle = answer(&h, Some(models), true);
                        if &as_elle != elle {
                            failures.push(format!("{file}\t{models}\t--elle-compat {as_elle:?}"));
                        }
                    }
                    listed
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
        .filter(|(f, _)| !f.starts_with("results:") && !f.starts_with("fixture:"))
        .count();
    assert_eq!(used, listed, "a listed difference matches no corpus row");
}

#[test]
fn results_edn_beside_histories() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let runs = store::find_runs(&dir).expect("readable corpus");
    let runs: Vec<_> = runs.iter().filter(|r| r.results.is_some()).collect();
    assert!(runs.len() >= 50, "only {} results.edn found", runs.len());
    let diffs = differences(DIFFERENCES);
    let mut failures = Vec::new();
    for run in runs {
        let results = run.results.as_deref().expect("filtered");
        let text = std::fs::read_to_string(results).expect("readable");
        let recorded =
            store::recorded_verdict(&text).unwrap_or_else(|e| panic!("{}: {e}", results.display()));
        let rel = run.name.join("history.edn").to_string_lossy().to_string();
        let h = history::load(&run.history, &LoadOptions::default()).expect("loads");
        // The runs used Elle's default model, strict-serializable; older
        // Elle versions computed `:not` differently, so compare the rest.
        let mut got = ours(&h, None);
        let mut want = Answer {
            valid: recorded.valid.name().into(),
            types: recorded.anomaly_types.join(","),
            not: String::new(),
        };
        got.not.clear();
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
