//! Why a history could not be read: typed errors with labelled spans, and
//! their miette rendering.

use super::edn::{Problem, SyntaxError};
use super::source::SourceFile;
use super::span::Span;
use miette::{Diagnostic, LabeledSpan, SourceCode};
use std::fmt;

/// What is wrong, without where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The input could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path, as given.
        path: String,
        /// The system's message.
        message: String,
    },
    /// The text is not EDN (or JSON).
    #[error("{0}")]
    Syntax(Problem),
    /// A form of the history is not an op map.
    #[error("expected an op map, found {0}")]
    NotAnOp(String),
    /// An op has no `:type`.
    #[error("op has no :type")]
    MissingType,
    /// A map that is not a Jepsen op: probably not a history.
    #[error("this is a map, but not a Jepsen op: it has no :type")]
    NotAHistory,
    /// An op field has the wrong kind of value.
    #[error(":{field} must be {expected}")]
    BadField {
        /// The field's name.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// An op map names a field twice.
    #[error("op has :{0} twice")]
    DuplicateField(String),
    /// A `:txn` op whose value is not a vector of micro-ops.
    #[error("op of :f :txn has a value that is not a transaction")]
    NotATransaction,
    /// A process invokes again before its last invocation completed.
    #[error("process {process} invokes again before its previous invocation completed")]
    DoubleInvoke {
        /// The process.
        process: i64,
    },
    /// A value written twice to one key.
    #[error("{kind} {value} to key {key} appears twice: values written to a key must be unique")]
    DuplicateWrite {
        /// `append` or `write`.
        kind: &'static str,
        /// The key, as EDN.
        key: String,
        /// The value, as EDN.
        value: String,
    },
    /// The history has both `:append` and `:w` micro-ops.
    #[error("the history mixes :append and :w micro-ops")]
    MixedWorkload,
    /// A list-append history reads a key whose value is not a list.
    #[error("read of key {key} is not a list, but this is a list-append history")]
    ReadNotAList {
        /// The key, as EDN.
        key: String,
    },
    /// A streamed history's op that is not list-append's, the only
    /// workload the streaming check decides.
    #[error("not a list-append history: {0}")]
    NotListAppend(String),
    /// A streamed rw-register history's op that is not rw-register's.
    #[error("not an rw-register history: {0}")]
    NotRwRegister(String),
    /// A streamed history's completion with no invocation.
    #[error("process {process} completes an op it did not invoke")]
    Uninvoked {
        /// The process.
        process: i64,
    },
    /// A form longer than a streamed history's reader holds at once.
    #[error(
        "a form of the history is longer than {limit} bytes, the most the streaming reader holds"
    )]
    FormTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A PolySI, dbcop or Cobra log that breaks its format.
    #[error("{0}")]
    Format(String),
    /// A register op of the wrong shape.
    #[error("{0}")]
    RegisterOp(String),
    /// An op of one of Jepsen's standard checkers (bank, counter, set, ...).
    #[error("{0}")]
    CheckerOp(String),
    /// An op of Elle's closed-predicate workload (`:init`, `:rp`, ...).
    #[error("{0}")]
    PredicateOp(String),
    /// A JSON history that is not valid JSON.
    #[error("{0}")]
    Json(String),
    /// A commit order (`--transaction-order`) that cannot be read or does
    /// not fit the history.
    #[error("{0}")]
    TransactionOrder(String),
}

/// A labelled place in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The bytes labelled.
    pub span: Span,
    /// The label's text.
    pub text: String,
}

/// A history that could not be read: what, where, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct HistoryError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// The first label is the primary one.
    pub labels: Vec<Label>,
    /// What to do about it, in one line.
    pub help: String,
}

impl HistoryError {
    /// An error with no label yet.
    pub fn new(kind: ErrorKind, help: impl Into<String>) -> Self {
        HistoryError {
            kind,
            labels: Vec::new(),
            help: help.into(),
        }
    }

    /// Adds a label (the first is the primary one).
    pub fn at(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
        });
        self
    }

    /// The error of a file that could not be read.
    pub fn io(path: &std::path::Path, e: &std::io::Error) -> Self {
        let kind = ErrorKind::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        HistoryError::new(kind, "check the path and its permissions")
    }

    /// The same error in a text that starts `by` bytes earlier: the error
    /// of a part of a file read alone, placed in the file.
    pub fn shifted(mut self, by: usize) -> Self {
        for label in &mut self.labels {
            label.span = label.span.shifted(by);
        }
        self
    }

    /// The primary span, if the error has a place.
    pub fn span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span)
    }

    /// A stable short name for the error, used as the diagnostic code.
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::Io { .. } => "isocheck::io",
            ErrorKind::Syntax(Problem::NotComparable(_)) => "isocheck::value",
            ErrorKind::Syntax(_) | ErrorKind::Json(_) | ErrorKind::FormTooLarge { .. } => {
                "isocheck::syntax"
            }
            ErrorKind::DoubleInvoke { .. } => "isocheck::double_invoke",
            ErrorKind::DuplicateWrite { .. } => "isocheck::duplicate_write",
            ErrorKind::MixedWorkload
            | ErrorKind::ReadNotAList { .. }
            | ErrorKind::NotListAppend(_)
            | ErrorKind::NotRwRegister(_) => "isocheck::workload",
            ErrorKind::Format(_) => "isocheck::format",
            ErrorKind::RegisterOp(_) => "isocheck::register",
            ErrorKind::CheckerOp(_) => "isocheck::checker",
            ErrorKind::PredicateOp(_) => "isocheck::closed_predicate",
            ErrorKind::TransactionOrder(_) => "isocheck::transaction_order",
            _ => "isocheck::op",
        }
    }
}

impl From<SyntaxError> for HistoryError {
    fn from(e: SyntaxError) -> Self {
        let help = e.problem.help();
        let label = match &e.problem {
            Problem::Eof(_) | Problem::UnterminatedString => "opened here",
            Problem::DuplicateKey(_) | Problem::DuplicateSetElement(_) => "seen before",
            Problem::OddMap => "this key has no value",
            Problem::NotComparable(_) => "this value",
            _ => "here",
        };
        HistoryError::new(ErrorKind::Syntax(e.problem), help).at(e.span, label)
    }
}

/// A [`HistoryError`] with the file it is about: what miette renders.
pub struct InputDiagnostic {
    /// The error.
    pub error: Box<HistoryError>,
    /// The file, when there is one to show excerpts of.
    pub source: Option<SourceFile>,
}

impl InputDiagnostic {
    /// An error about `source`.
    pub fn new(error: HistoryError, source: Option<SourceFile>) -> Self {
        InputDiagnostic {
            error: Box::new(error),
            source,
        }
    }

    /// `file:line:column` of the primary span, when there is one.
    pub fn location(&self) -> Option<String> {
        let (src, span) = (self.source.as_ref()?, self.error.span()?);
        let (line, col) = src.line_col(span.start());
        Some(format!("{}:{line}:{col}", src.name()))
    }
}

impl fmt::Debug for InputDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.error, f)
    }
}

impl fmt::Display for InputDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location() {
            Some(loc) => write!(f, "{loc}: {}", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

impl std::error::Error for InputDiagnostic {}

impl Diagnostic for InputDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.error.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.error.help))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source
            .as_ref()
            .filter(|_| !self.error.labels.is_empty())
            .map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let labels = self.error.labels.iter().enumerate().map(|(i, l)| {
            let span: miette::SourceSpan = l.span.into();
            match i {
                0 => LabeledSpan::new_primary_with_span(Some(l.text.clone()), span),
                _ => LabeledSpan::new_with_span(Some(l.text.clone()), span),
            }
        });
        Some(Box::new(labels))
    }
}
