//! `:valid?`, the one word every kind of check answers with: the
//! transactional pipeline (`check`), the register check (`registers`) and
//! Jepsen's checkers (`checkers`) all say it the same way.

/// `:valid?`; serialized as the result maps say it: `true`, `false` or
/// `"unknown"` (a boolean when it is one, as in `check --format json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// The history satisfies what was checked.
    True,
    /// The history violates what was checked.
    False,
    /// Only `:empty-transaction-graph` (or a stopped search) was reportable.
    Unknown,
}

impl serde::Serialize for Validity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Validity::True => s.serialize_bool(true),
            Validity::False => s.serialize_bool(false),
            Validity::Unknown => s.serialize_str("unknown"),
        }
    }
}

impl Validity {
    /// `true`, `false` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Validity::True => "true",
            Validity::False => "false",
            Validity::Unknown => "unknown",
        }
    }
}
