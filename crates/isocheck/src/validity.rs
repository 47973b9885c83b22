//! `:valid?`, the one word every kind of check answers with: the
//! transactional pipeline (`check`), the register check (`registers`) and
//! Jepsen's checkers (`checkers`) all say it the same way.

/// `:valid?`
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Validity {
    /// The history satisfies what was checked.
    True,
    /// The history violates what was checked.
    False,
    /// Only `:empty-transaction-graph` (or a stopped search) was reportable.
    Unknown,
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
