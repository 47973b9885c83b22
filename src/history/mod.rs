//! Reading histories: the model ([`model`]), the EDN reader ([`edn`],
//! [`jepsen`]), the other published formats ([`formats`]), and pairing ops
//! into transactions ([`build`]).
//!
//! This layer knows nothing of graphs or consistency models: it turns bytes
//! into a [`History`] or a [`HistoryError`] that points into the file.

pub mod build;
pub mod edn;
pub mod error;
pub mod formats;
pub mod jepsen;
pub mod model;
mod register;
pub mod source;
pub mod span;
pub mod value;

pub use error::{HistoryError, InputDiagnostic};
pub use model::{
    History, MicroOp, MopKind, MopValue, Op, OpId, OpType, OpValue, Process, RegisterF, RegisterOp,
    Status, Txn, TxnId, Workload,
};
pub use source::SourceFile;
pub use span::Span;
pub use value::{Val, ValueTable};

use error::ErrorKind;
use std::path::Path;

/// The input formats isocheck reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Jepsen `history.edn`.
    Edn,
    /// PolySI's text format, one `r(key,value,session,txn)` or `w(...)` per line.
    Polysi,
    /// dbcop's `history.bincode`.
    Dbcop,
    /// A directory of Cobra `T*.log` client logs.
    Cobra,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Edn => "edn",
            Format::Polysi => "polysi",
            Format::Dbcop => "dbcop",
            Format::Cobra => "cobra",
        }
    }
}

/// How to read a history.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// The input format; detected from the path and content when `None`.
    pub format: Option<Format>,
    /// The workload; detected from the micro-ops when `None`.
    pub workload: Option<Workload>,
}

/// Reads the history at `path`.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<History, InputDiagnostic> {
    let no_source = |e: HistoryError| InputDiagnostic::new(e, None);
    let format = match opts.format {
        Some(f) => f,
        None => formats::detect(path).map_err(no_source)?,
    };
    let name = path.display().to_string();
    match format {
        Format::Edn | Format::Polysi => {
            let bytes = std::fs::read(path).map_err(|e| no_source(HistoryError::io(path, &e)))?;
            let text = text_of(&name, bytes)?;
            parse_text(format, &name, text, opts.workload)
        }
        Format::Dbcop => {
            let bytes = std::fs::read(path).map_err(|e| no_source(HistoryError::io(path, &e)))?;
            let ops = formats::dbcop::read(&bytes).map_err(no_source)?;
            build::build(SourceFile::new(name, ""), ops, opts.workload).map_err(no_source)
        }
        Format::Cobra => {
            let ops = formats::cobra::read_dir(path).map_err(no_source)?;
            build::build(SourceFile::new(name, ""), ops, opts.workload).map_err(no_source)
        }
    }
}

/// Reads a history held in memory as text (EDN or PolySI text).
pub fn parse_text(
    format: Format,
    name: &str,
    text: String,
    workload: Option<Workload>,
) -> Result<History, InputDiagnostic> {
    let source = SourceFile::new(name, text);
    let ops = match format {
        Format::Polysi => formats::polysi::read(source.text()),
        _ => jepsen::read_ops(source.text()),
    };
    let with_source = |e: HistoryError| InputDiagnostic::new(e, Some(source.clone()));
    let ops = ops.map_err(with_source)?;
    build::build(source.clone(), ops, workload).map_err(with_source)
}

/// Reads a Jepsen EDN history held in memory.
pub fn parse_edn(name: &str, text: &str) -> Result<History, InputDiagnostic> {
    parse_text(Format::Edn, name, text.to_owned(), None)
}

fn text_of(name: &str, bytes: Vec<u8>) -> Result<String, InputDiagnostic> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let err = HistoryError::new(
            ErrorKind::Syntax(edn::Problem::InvalidUtf8),
            "histories are UTF-8 text",
        )
        .at(Span::new(at, at + 1), "this byte");
        InputDiagnostic::new(err, Some(SourceFile::new(name, lossy)))
    })
}

#[cfg(test)]
mod tests;
