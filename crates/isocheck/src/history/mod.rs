//! Reading histories: the one read of each input ([`Input`]: a file, a
//! pipe or FIFO, `-` for standard input, a Cobra directory), the model
//! ([`model`]), the EDN reader ([`edn`], [`jepsen`]), the other published
//! formats ([`formats`]), and pairing ops into transactions ([`build`]).
//!
//! This layer knows nothing of graphs or consistency models: it turns bytes
//! into a [`History`] or a [`HistoryError`] that points into the file.

pub mod build;
pub(crate) mod checker_ops;
pub mod commit_order;
pub mod edn;
pub mod error;
pub mod formats;
pub mod jepsen;
pub mod model;
pub mod predicate;
pub(crate) mod register;
pub mod source;
pub mod span;
mod stream;
mod text;
pub mod value;

pub use error::{HistoryError, InputDiagnostic};
pub use model::{
    Balance, CheckerF, CheckerOp, CheckerValue, History, MicroOp, MopKind, MopValue, Op, OpId,
    OpType, OpValue, Process, RegisterF, RegisterOp, Status, Txn, TxnId, Workload,
};
pub use source::SourceFile;
pub use span::Span;
pub use text::Text;
pub use value::{Val, ValueTable};

use error::ErrorKind;
use std::path::Path;
use text::Bytes;

/// The input formats isocheck reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Jepsen `history.edn`.
    Edn,
    /// Jepsen ops as JSON objects (elle-cli's form): one array, or one a line.
    Json,
    /// Chronos's JSON array of transactions with start and commit
    /// timestamps.
    Chronos,
    /// PolySI's text format, one `r(key,value,session,txn)` or `w(...)` per line.
    Polysi,
    /// dbcop's `history.bincode`.
    Dbcop,
    /// A directory of Cobra `T*.log` client logs.
    Cobra,
}

impl Format {
    /// The format's name, as `--input-format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Edn => "edn",
            Format::Json => "json",
            Format::Chronos => "chronos",
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

/// The path that stands for standard input.
pub const STDIN_PATH: &str = "-";
/// How standard input is named in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// A history's input, read exactly once: a pipe or FIFO cannot be read
/// again, so the format is detected from the bytes already read and they
/// are parsed from memory.
#[derive(Clone)]
pub struct Input {
    /// The path as given, or [`STDIN_NAME`]: what messages call it.
    pub name: String,
    /// The input format; detected from the text unless given.
    pub format: Format,
    content: Content,
}

#[derive(Clone)]
enum Content {
    /// The whole file (or standard input).
    Bytes(Bytes),
    /// A directory of Cobra logs, read file by file when parsed.
    Dir(std::path::PathBuf),
}

impl Input {
    /// Reads `path` ([`STDIN_PATH`] for standard input) once, whole, and
    /// detects its format unless `format` names it.
    pub fn read(path: &Path, format: Option<Format>) -> Result<Input, InputDiagnostic> {
        let no_source = |e: HistoryError| InputDiagnostic::new(e, None);
        if path.as_os_str() == STDIN_PATH {
            let bytes = stream::read_all(|| Ok(std::io::stdin()))
                .map_err(|e| no_source(HistoryError::io(Path::new(STDIN_NAME), &e)))?;
            let bytes = Bytes::Read(bytes);
            return Input::of_bytes(STDIN_NAME, None, bytes, format).map_err(no_source);
        }
        let name = path.display().to_string();
        let metadata =
            std::fs::metadata(path).map_err(|e| no_source(HistoryError::io(path, &e)))?;
        let kind = metadata.file_type();
        let is_dir = kind.is_dir();
        if format == Some(Format::Cobra) || (is_dir && format.is_none()) {
            let content = Content::Dir(path.to_path_buf());
            let format = Format::Cobra;
            return Ok(Input {
                name,
                format,
                content,
            });
        }
        // A file's size is known (its budget checked before it is read); a
        // FIFO or a device may never end.
        let bytes = match kind.is_file() {
            true => Bytes::of_file(path, metadata.len()),
            false => {
                let owned = path.to_path_buf();
                stream::read_all(move || std::fs::File::open(owned)).map(Bytes::Read)
            }
        };
        let bytes = bytes.map_err(|e| no_source(HistoryError::io(path, &e)))?;
        let extension = path.extension().and_then(|e| e.to_str());
        Input::of_bytes(&name, extension, bytes, format).map_err(no_source)
    }

    fn of_bytes(
        name: &str,
        extension: Option<&str>,
        bytes: Bytes,
        format: Option<Format>,
    ) -> Result<Input, HistoryError> {
        let format = match format {
            Some(f) => f,
            None => formats::detect(name, extension, &bytes)?,
        };
        Ok(Input {
            name: name.to_string(),
            format,
            content: Content::Bytes(bytes),
        })
    }

    /// Bytes of input: those read, or the files of a Cobra directory.
    pub fn size(&self) -> u64 {
        match &self.content {
            Content::Bytes(b) => b.len() as u64,
            Content::Dir(dir) => input_size(dir),
        }
    }

    /// The input as UTF-8 text.
    pub fn into_text(self) -> Result<Text, InputDiagnostic> {
        match self.content {
            Content::Bytes(bytes) => text_of(&self.name, bytes),
            Content::Dir(_) => Err(InputDiagnostic::new(
                HistoryError::new(
                    ErrorKind::Format(format!("{} is a directory, not text", self.name)),
                    "pass a history file",
                ),
                None,
            )),
        }
    }

    /// The history the input holds, paired into transactions.
    pub fn parse(self, workload: Option<Workload>) -> Result<History, InputDiagnostic> {
        let no_source = |e: HistoryError| InputDiagnostic::new(e, None);
        let ops = match (self.format, self.content) {
            (_, Content::Dir(dir)) => formats::cobra::read_dir(&dir),
            (
                Format::Edn | Format::Json | Format::Chronos | Format::Polysi,
                Content::Bytes(bytes),
            ) => {
                let source = SourceFile::new(self.name.as_str(), text_of(&self.name, bytes)?);
                return parse_source(self.format, source, workload);
            }
            (Format::Dbcop, Content::Bytes(bytes)) => formats::dbcop::read(&bytes),
            (Format::Cobra, Content::Bytes(_)) => Err(HistoryError::new(
                ErrorKind::Format(format!("{} is not a directory", self.name)),
                "a Cobra history is a directory of T*.log files; pass its path",
            )),
        };
        let source = SourceFile::new(self.name, "");
        build::build(source, ops.map_err(no_source)?, workload).map_err(no_source)
    }
}

/// Bytes of a file, or of the files of a directory (0 when unknown). Never
/// opens the file, so a FIFO is left for the one read.
pub fn input_size(path: &Path) -> u64 {
    match std::fs::read_dir(path) {
        Ok(dir) => dir
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum(),
        Err(_) => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

/// Reads the history at `path` ([`STDIN_PATH`] for standard input).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<History, InputDiagnostic> {
    Input::read(path, opts.format)?.parse(opts.workload)
}

/// Reads a history held in memory as text (EDN, JSON, Chronos's JSON or
/// PolySI text).
pub fn parse_text(
    format: Format,
    name: &str,
    text: String,
    workload: Option<Workload>,
) -> Result<History, InputDiagnostic> {
    parse_source(format, SourceFile::new(name, text), workload)
}

/// Reads the history `source` holds.
fn parse_source(
    format: Format,
    source: SourceFile,
    workload: Option<Workload>,
) -> Result<History, InputDiagnostic> {
    let ops = match format {
        Format::Polysi => formats::polysi::read(source.text()),
        Format::Json => formats::json::read_ops(source.text()),
        Format::Chronos => formats::chronos::read(source.text()),
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

fn text_of(name: &str, bytes: Bytes) -> Result<Text, InputDiagnostic> {
    Text::of_bytes(bytes).map_err(|(bytes, e)| {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        let err = not_utf8(e.valid_up_to());
        InputDiagnostic::new(err, Some(SourceFile::new(name, lossy)))
    })
}

/// The error of an input whose byte `at` is not (or does not complete)
/// UTF-8.
fn not_utf8(at: usize) -> HistoryError {
    HistoryError::new(
        ErrorKind::Syntax(edn::Problem::InvalidUtf8),
        "histories are UTF-8 text",
    )
    .at(Span::new(at, at.saturating_add(1)), "this byte")
}

#[cfg(test)]
mod tests;
