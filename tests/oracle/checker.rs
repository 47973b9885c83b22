//! isocheck's verdicts, through its public way in (`history::parse_text`
//! as `--workload` does, then `isocheck::check`) with the options of
//! `check -m MODEL`, `--no-fast-path` and `--every-pair`.

use super::history::{History, Kind};
use isocheck::history::{self, Format, InputDiagnostic, Workload};
use isocheck::internals::check::{CheckOptions, SolveOptions, Validity};

/// The command-line variants compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Default,
    NoFastPath,
    EveryPair,
}

impl Way {
    pub const ALL: [Way; 3] = [Way::Default, Way::NoFastPath, Way::EveryPair];

    pub fn flag(self) -> &'static str {
        match self {
            Way::Default => "",
            Way::NoFastPath => " --no-fast-path",
            Way::EveryPair => " --every-pair",
        }
    }

    fn options(self, model: &str) -> CheckOptions {
        CheckOptions {
            consistency_models: Some(vec![model.to_string()]),
            solve: SolveOptions {
                reduce: self != Way::EveryPair,
                ..SolveOptions::default()
            },
            no_fast_path: self == Way::NoFastPath,
            ..CheckOptions::default()
        }
    }
}

/// `:valid?` and `:anomaly-types`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub valid: Validity,
    pub types: Vec<&'static str>,
}

impl Answer {
    /// `Some(valid)`, or `None` for `:unknown`.
    pub fn decided(&self) -> Option<bool> {
        match self.valid {
            Validity::True => Some(true),
            Validity::False => Some(false),
            Validity::Unknown => None,
        }
    }
}

/// The parsed history, to check under several models.
pub fn parse(h: &History) -> history::History {
    try_parse(h).unwrap_or_else(|e| panic!("a generated history parses: {e:?}\n{}", h.edn()))
}

/// The parsed history, or the diagnostic the checker refuses it with
/// (`isocheck::duplicate_write` for a value written twice to a key, while
/// the checker requires unique values).
pub fn try_parse(h: &History) -> Result<history::History, InputDiagnostic> {
    let workload = match h.kind {
        Kind::Register => Workload::RwRegister,
        Kind::List => Workload::ListAppend,
    };
    history::parse_text(Format::Edn, "oracle.edn", h.edn(), Some(workload))
}

pub fn answer(parsed: &history::History, model: &str, way: Way) -> Answer {
    let outcome = isocheck::check(parsed, &way.options(model))
        .unwrap_or_else(|e| panic!("{model} is a known model: {e}"));
    Answer {
        valid: outcome.validity(),
        types: outcome.anomaly_types(),
    }
}
