//! Why our verdict on a run differs from the one it recorded: the reason
//! column of `recheck`. Each reason is found, not guessed: by checking the
//! history again with one of Elle's limits put back (no search over
//! unknown write orders, no garbage reads, only the models Elle decides)
//! and seeing that the verdicts then agree, or by reading the options the
//! run left (or did not leave) and the models' prohibitions.

use super::Ours;
use isocheck::models::{self as lattice, Definition, DEFAULT_MODEL};
use isocheck::store::{Agreement, Recorded};
use isocheck::{CheckOptions, Validity};

/// Anomaly types that say what was not decided rather than what was found.
const NOT_FOUND: [&str; 3] = [
    lattice::CYCLE_SEARCH_TIMEOUT,
    lattice::EMPTY_TRANSACTION_GRAPH,
    lattice::MODEL_NOT_CHECKED,
];

/// What is known of one compared run.
pub struct Case<'a> {
    pub recorded: &'a Recorded,
    pub ours: &'a Ours,
    /// The options the history was checked with.
    pub opts: &'a CheckOptions,
    /// Whether the run recorded its `:consistency-models`.
    pub models_recorded: bool,
    /// A list-append or rw-register history, where Elle's limits apply.
    pub transactional: bool,
}

/// One check again with an option changed, and what agreeing then means.
struct Probe {
    opts: CheckOptions,
    why: String,
}

/// The reason for `agreement`, or `None` when there is nothing to explain.
/// `check` checks the history again with other options (`None` when that
/// check gave no verdict).
pub fn reason(
    case: &Case,
    agreement: Agreement,
    mut check: impl FnMut(&CheckOptions) -> Option<Ours>,
) -> Option<String> {
    if matches!(agreement, Agreement::Yes | Agreement::NotCompared) {
        return None;
    }
    let mut parts = Vec::new();
    parts.extend(undecided(case));
    parts.extend(other_types(case, agreement));
    // An undecided recorded check is its own reason: nothing here can
    // agree with it.
    if case.recorded.valid == Validity::Unknown {
        return Some(parts.join("; "));
    }
    let recorded = (case.recorded.valid, case.recorded.anomaly_types.as_slice());
    let found = probes(case).into_iter().find(|p| {
        check(&p.opts).is_some_and(|o| {
            Agreement::of(Some(recorded), Some((o.valid, &o.anomaly_types))) == Agreement::Yes
        })
    });
    match found {
        Some(p) => parts.push(p.why),
        // Options explain verdicts, not a check a limit stopped.
        None if case.ours.valid == Validity::Unknown => {}
        None => parts.push(from_options(case)),
    }
    Some(parts.join("; "))
}

/// Which side did not decide, and what stopped it.
fn undecided(case: &Case) -> Option<String> {
    let types = |t: &[String]| match t {
        [] => String::new(),
        t => format!(" ({})", t.join(", ")),
    };
    match (case.recorded.valid, case.ours.valid) {
        (Validity::Unknown, Validity::Unknown) => None,
        (Validity::Unknown, _) => Some(format!(
            "the recorded check did not decide{}",
            types(&case.recorded.anomaly_types)
        )),
        (_, Validity::Unknown) => Some(format!(
            "isocheck did not decide{}",
            types(&case.ours.anomaly_types)
        )),
        _ => None,
    }
}

/// The anomaly types only one side names, when `:valid?` agrees.
fn other_types(case: &Case, agreement: Agreement) -> Option<String> {
    if agreement != Agreement::TypesDiffer {
        return None;
    }
    let only = |a: &[String], b: &[String]| -> String {
        let v: Vec<&str> = a
            .iter()
            .filter(|t| !b.contains(t))
            .map(String::as_str)
            .collect();
        match v.as_slice() {
            [] => "none".to_string(),
            v => v.join(", "),
        }
    };
    let (r, o) = (&case.recorded.anomaly_types, &case.ours.anomaly_types);
    Some(format!(
        "other anomaly types: only recorded {}, only isocheck {}",
        only(r, o),
        only(o, r)
    ))
}

/// The checks that put back one of Elle's limits each (then two), in
/// that order; only those that change something.
fn probes(case: &Case) -> Vec<Probe> {
    let o = case.opts;
    let mut probes = Vec::new();
    if !case.transactional {
        probes.extend(elle_models(o));
        return probes;
    }
    let certain_only = || CheckOptions {
        solve: isocheck::SolveOptions {
            enabled: false,
            ..o.solve
        },
        ..o.clone()
    };
    let elle_compat = |base: CheckOptions| CheckOptions {
        elle_compat: true,
        ..base
    };
    if o.solve.enabled {
        let found: Vec<&str> = case
            .ours
            .anomaly_types
            .iter()
            .map(String::as_str)
            .filter(|t| !NOT_FOUND.contains(t))
            .collect();
        let what = match (case.ours.valid, found.as_slice()) {
            (Validity::False, [_, ..]) => {
                format!("isocheck's {} exists only over", found.join(", "))
            }
            _ => "the verdict depends on".to_string(),
        };
        probes.push(Probe {
            opts: certain_only(),
            why: format!(
                "unknown write orders: {what} orders of writes the history leaves open, which \
                 Elle does not search (isocheck --certain-only agrees)"
            ),
        });
    }
    if !o.elle_compat {
        probes.push(Probe {
            opts: elle_compat(o.clone()),
            why: "garbage reads: reads of values nobody wrote, which Elle does not look for \
                  (isocheck --elle-compat agrees)"
                .into(),
        });
    }
    if o.solve.enabled && !o.elle_compat {
        probes.push(Probe {
            opts: elle_compat(certain_only()),
            why: "unknown write orders and garbage reads, neither of which Elle looks at \
                  (isocheck --certain-only --elle-compat agrees)"
                .into(),
        });
    }
    probes.extend(elle_models(o));
    probes
}

/// The check with only the models Elle decides, when some of those asked
/// for are isocheck's own (decided by axioms, or not at all).
fn elle_models(o: &CheckOptions) -> Option<Probe> {
    let asked: Vec<&str> = match &o.consistency_models {
        Some(ms) => ms.iter().map(String::as_str).collect(),
        None => vec![DEFAULT_MODEL],
    };
    let (elle, own): (Vec<&str>, Vec<&str>) = asked
        .iter()
        .partition(|m| matches!(lattice::definition(m), Some(Definition::Adya)));
    if own.is_empty() {
        return None;
    }
    Some(Probe {
        opts: CheckOptions {
            consistency_models: Some(elle.iter().map(|m| m.to_string()).collect()),
            ..o.clone()
        },
        why: format!(
            "a model Elle does not check: isocheck decides {} by its definition, which \
             Elle's lattice does not; without it isocheck agrees",
            own.join(", ")
        ),
    })
}

/// The reason the options give when no check with Elle's limits agrees:
/// recorded anomalies the models checked here allow, models the run did
/// not record, or none found.
fn from_options(case: &Case) -> String {
    let o = case.opts;
    let models: Vec<&str> = match &o.consistency_models {
        Some(ms) => ms.iter().map(String::as_str).collect(),
        None => vec![DEFAULT_MODEL],
    };
    let anomalies: Vec<&str> = o.anomalies.iter().map(String::as_str).collect();
    let prohibited = lattice::prohibited_anomalies(Some(&models), &anomalies);
    let allowed: Vec<&str> = case
        .recorded
        .anomaly_types
        .iter()
        .map(String::as_str)
        .filter(|t| lattice::is_known_anomaly(t) && !prohibited.contains(t))
        .collect();
    let checked = match models.as_slice() {
        [] => "no model".to_string(),
        ms => ms.join(", "),
    };
    if !allowed.is_empty() {
        return format!(
            "options differ: the recorded {} is allowed by {checked}, checked here, so the run \
             was checked for other models",
            allowed.join(", ")
        );
    }
    if !case.models_recorded {
        return format!(
            "options differ: the run did not record its :consistency-models, and was checked \
             here for {checked}; give the run's models with -m"
        );
    }
    "not explained: the same options, and none of Elle's limits (--certain-only, \
     --elle-compat, its models) makes the verdicts agree; see the run's report"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(valid: Validity, types: &[&str]) -> Recorded {
        Recorded {
            valid,
            anomaly_types: types.iter().map(|t| t.to_string()).collect(),
            not: Vec::new(),
        }
    }

    fn ours(valid: Validity, types: &[&str]) -> Ours {
        Ours {
            valid,
            anomaly_types: types.iter().map(|t| t.to_string()).collect(),
            not: Vec::new(),
        }
    }

    /// A disagreement that Elle's view removes is named by that view; the
    /// probes are tried in order, and the first that agrees names it.
    #[test]
    fn the_first_probe_that_agrees_names_the_reason() {
        let (r, o, opts) = (
            recorded(Validity::True, &[]),
            ours(Validity::False, &["G2-item"]),
            CheckOptions::default(),
        );
        let case = Case {
            recorded: &r,
            ours: &o,
            opts: &opts,
            models_recorded: true,
            transactional: true,
        };
        let mut seen = Vec::new();
        let why = reason(&case, Agreement::No, |p| {
            seen.push((p.solve.enabled, p.elle_compat));
            Some(match p.elle_compat {
                true => ours(Validity::True, &[]),
                false => ours(Validity::False, &["G2-item"]),
            })
        });
        assert!(
            why.as_deref().unwrap_or("").starts_with("garbage reads"),
            "{why:?}"
        );
        assert_eq!(seen, [(false, false), (true, true)]);
        let why = reason(&case, Agreement::No, |p| {
            Some(match p.solve.enabled {
                false => ours(Validity::True, &[]),
                true => ours(Validity::False, &["G2-item"]),
            })
        });
        assert!(why.unwrap_or_default().starts_with("unknown write orders"));
    }

    #[test]
    fn without_an_agreeing_probe_the_options_speak() {
        let opts = CheckOptions {
            consistency_models: Some(vec!["snapshot-isolation".into()]),
            ..CheckOptions::default()
        };
        let (r, o) = (
            recorded(Validity::False, &["G2-item"]),
            ours(Validity::True, &[]),
        );
        let case = Case {
            recorded: &r,
            ours: &o,
            opts: &opts,
            models_recorded: true,
            transactional: true,
        };
        let same = |_: &CheckOptions| Some(ours(Validity::True, &[]));
        let why = reason(&case, Agreement::No, same).unwrap_or_default();
        assert!(
            why.starts_with(
                "options differ: the recorded G2-item is allowed by snapshot-isolation"
            ),
            "{why}"
        );
        // Nothing to say when they agree or were not compared.
        assert_eq!(reason(&case, Agreement::Yes, same), None);
        assert_eq!(reason(&case, Agreement::NotCompared, same), None);
        let (r, o) = (
            recorded(Validity::True, &[]),
            ours(Validity::False, &["G2-item"]),
        );
        let unrecorded = Case {
            recorded: &r,
            ours: &o,
            models_recorded: false,
            ..case
        };
        let g2 = |_: &CheckOptions| Some(ours(Validity::False, &["G2-item"]));
        let why = reason(&unrecorded, Agreement::No, g2).unwrap_or_default();
        assert!(
            why.starts_with("options differ: the run did not record its :consistency-models"),
            "{why}"
        );
        let recorded_models = Case {
            models_recorded: true,
            ..unrecorded
        };
        let why = reason(&recorded_models, Agreement::No, g2).unwrap_or_default();
        assert!(why.starts_with("not explained"), "{why}");
    }

    #[test]
    fn a_model_elle_does_not_check_is_named() {
        let opts = CheckOptions {
            consistency_models: Some(vec!["serializable".into(), "causal-cerone".into()]),
            ..CheckOptions::default()
        };
        let (r, o) = (recorded(Validity::True, &[]), ours(Validity::False, &["x"]));
        let case = Case {
            recorded: &r,
            ours: &o,
            opts: &opts,
            models_recorded: true,
            transactional: false,
        };
        let why = reason(&case, Agreement::No, |p| {
            let ms = p.consistency_models.clone().unwrap_or_default();
            Some(match ms.as_slice() {
                [m] if m == "serializable" => ours(Validity::True, &[]),
                _ => ours(Validity::False, &["x"]),
            })
        })
        .unwrap_or_default();
        assert!(
            why.starts_with("a model Elle does not check: isocheck decides causal-cerone"),
            "{why}"
        );
    }

    #[test]
    fn undecided_and_other_types_say_which_side() {
        let opts = CheckOptions::default();
        let (r, o) = (
            recorded(Validity::True, &[]),
            ours(Validity::Unknown, &["cycle-search-timeout"]),
        );
        let case = Case {
            recorded: &r,
            ours: &o,
            opts: &opts,
            models_recorded: true,
            transactional: false,
        };
        let why = reason(&case, Agreement::Undecided, |_| None).unwrap_or_default();
        assert_eq!(why, "isocheck did not decide (cycle-search-timeout)");
        let (r2, o2) = (
            recorded(Validity::Unknown, &["cycle-search-timeout"]),
            ours(Validity::False, &["G2-item"]),
        );
        let theirs = Case {
            recorded: &r2,
            ours: &o2,
            ..case
        };
        let why = reason(&theirs, Agreement::Undecided, |_| panic!("no check needed"));
        assert_eq!(
            why.as_deref(),
            Some("the recorded check did not decide (cycle-search-timeout)")
        );
        let (r, o) = (
            recorded(Validity::False, &["G0", "G1c"]),
            ours(Validity::False, &["G1c", "G2-item"]),
        );
        let case = Case {
            recorded: &r,
            ours: &o,
            ..case
        };
        let why = reason(&case, Agreement::TypesDiffer, |_| None).unwrap_or_default();
        assert!(
            why.starts_with("other anomaly types: only recorded G0, only isocheck G2-item; "),
            "{why}"
        );
    }
}
