//! The report of a check whose verdict was computed but whose rendering a
//! limit (`--timeout`, `--max-memory`) cut short: the verdict stands, in
//! every format, with a note of which limit cut the report and where.

use super::result::{kws, map, R};
use crate::check::Validity;
use crate::limits::{Reason, Stop};
use std::borrow::Cow;

/// The verdict's first line, for a cut that came before the report wrote
/// it.
pub fn header(valid: Validity, types: &[&str]) -> String {
    let word = super::html::validity_word(valid);
    match types.is_empty() {
        true => format!("{word}\n"),
        false => format!("{word}: {}\n", types.join(", ")),
    }
}

/// The note that ends a cut report for people.
pub fn note(stop: &Stop) -> String {
    let why = match stop.reason {
        Reason::Timeout(t) => format!("the --timeout of {} s passed", t.as_secs_f64()),
        Reason::MemoryLimit { budget, .. } => {
            format!("memory in use went over the budget of {budget} bytes")
        }
    };
    let help = match stop.reason {
        Reason::Timeout(_) => "allow more time with --timeout",
        Reason::MemoryLimit { .. } => "raise --max-memory",
    };
    format!(
        "\n… report cut: {why} while {} (stage {}); the verdict above stands\n  help: {help}, \
         or ask for the result map alone (--format edn or json)\n",
        stop.stage.doing(),
        stop.stage.name()
    )
}

/// The result map of a cut report: `:valid?`, `:anomaly-types` and `:not`,
/// and `:report-cut` with the limit.
fn result_map(valid: Validity, types: &[&str], not: &[&str], stop: &Stop) -> R<'static> {
    let names = |xs: &[&str]| {
        R::Vec(
            xs.iter()
                .map(|x| R::Kw(Cow::Owned(x.to_string())))
                .collect(),
        )
    };
    map(vec![
        ("valid?", super::result::valid(valid)),
        ("anomaly-types", names(types)),
        ("not", names(not)),
        ("report-cut", kws(stop.reason.name())),
    ])
}

/// `result_map` as EDN.
pub fn edn(valid: Validity, types: &[&str], not: &[&str], stop: &Stop) -> String {
    super::edn::print(&result_map(valid, types, not, stop))
}

/// `result_map` as JSON.
pub fn json(valid: Validity, types: &[&str], not: &[&str], stop: &Stop) -> serde_json::Value {
    super::json::to_json(&result_map(valid, types, not, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Stage;
    use std::time::Duration;

    fn stop() -> Stop {
        Stop {
            reason: Reason::Timeout(Duration::from_secs(3)),
            stage: Stage::Report,
            ops: 10,
            input_bytes: 300,
        }
    }

    #[test]
    fn a_cut_report_keeps_the_verdict() {
        let text = header(Validity::False, &["duplicated"]) + &note(&stop());
        assert!(text.starts_with("invalid: duplicated\n"), "{text}");
        assert!(text.contains("report cut: the --timeout of 3 s passed while writing the report (stage report); the verdict above stands"), "{text}");
        let edn = edn(Validity::False, &["G1c"], &["read-committed"], &stop());
        assert_eq!(
            edn,
            "{:valid? false,\n :anomaly-types [:G1c],\n :not [:read-committed],\n :report-cut :timeout}"
        );
        let json = json(Validity::False, &["G1c"], &[], &stop());
        assert_eq!(json["valid?"], false);
        assert_eq!(json["report-cut"], "timeout");
    }
}
