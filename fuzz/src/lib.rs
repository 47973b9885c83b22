//! The code paths the fuzz targets drive, one function per target.
//!
//! Shared by the cargo-fuzz binaries (`fuzz/fuzz_targets/*.rs`, which call
//! these through the `isocheck_fuzz` library) and by the main crate's
//! `tests/fuzz_regressions.rs` (which includes this file as a module with
//! `#[path]`), so a crash input is replayed through exactly the code that
//! found it. Depend on nothing but `isocheck` and `std` here.
//!
//! Every target must not panic on any input. Besides that, the harness
//! checks one invariant of its own: the labels of a diagnostic that carries
//! its source text point inside that text (otherwise miette cannot show the
//! snippet and `render` silently falls back to a one-line message). Set
//! `ISOCHECK_FUZZ_LAX=1` to skip that check.

use isocheck::history::edn::{self, Kind, Node};
use isocheck::history::formats::{chronos, cobra, dbcop, json};
use isocheck::history::{
    build, jepsen, parse_text, Format, History, HistoryError, InputDiagnostic, SourceFile, Workload,
};
use isocheck::report::diagnostic::render;
use isocheck::stats::Stats;
use isocheck::CheckOptions;
use std::path::PathBuf;
use std::time::Duration;

/// `edn_values`: the generic EDN reader. Every value read must have a
/// canonical form and a description; a syntax error must render.
pub fn edn_values(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match edn::read_all(&text) {
        Ok(nodes) => {
            for node in &nodes {
                visit(node);
            }
        }
        Err(e) => {
            let diag = InputDiagnostic::new(
                HistoryError::from(e),
                Some(SourceFile::new("fuzz.edn", text.as_ref())),
            );
            check_diagnostic(&diag);
        }
    }
}

/// Canonical text, description and map lookups of a node and its children.
fn visit(node: &Node<'_>) {
    let _ = node.canonical();
    let _ = jepsen::describe(node);
    let _ = node.get("type");
    let _ = node.untagged();
    let _ = node.integer();
    match &node.kind {
        Kind::List(items) | Kind::Vector(items) | Kind::Set(items) => items.iter().for_each(visit),
        Kind::Map(entries) => entries.iter().for_each(|(k, v)| {
            visit(k);
            visit(v);
        }),
        Kind::Tagged(_, v) => visit(v),
        _ => {}
    }
}

/// `history_edn`: a Jepsen `history.edn` through the typed op reader and
/// pairing ([`parse_text`]); then [`Stats`] or the rendered diagnostic.
///
/// A first line `;;workload=list-append` or `;;workload=rw-register` (an
/// EDN comment, so the text reads the same) forces the workload, as
/// `--workload` does.
pub fn history_edn(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let workload = workload_hint(&text);
    parse_and_report(Format::Edn, text, workload);
}

/// `polysi_text`: PolySI's text format through [`parse_text`]. The same
/// `;;workload=...` first line forces the workload (it is removed before
/// the text is read, since it is not PolySI syntax).
pub fn polysi_text(data: &[u8]) {
    let mut text = String::from_utf8_lossy(data).into_owned();
    let workload = workload_hint(&text);
    if workload.is_some() {
        let rest = text.find('\n').map_or(text.len(), |i| i + 1);
        text.drain(..rest);
    }
    parse_and_report(Format::Polysi, text, workload);
}

/// `chronos_json`: Chronos's JSON histories through [`parse_text`]
/// (`formats::chronos::read` + build, the timestamps by transaction).
pub fn chronos_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    parse_and_report(Format::Chronos, text, None);
}

/// The solver's budget per input in `check_history`: long enough for the
/// small histories the target is for, short enough that a hard one cannot
/// stall the run. Nothing asserts on time; an `:unknown` verdict is fine.
const CHECK_TIMEOUT: Duration = Duration::from_millis(200);

/// The consistency models `check_history` checks an input under, one set
/// per input, picked by [`variant`]: the default (strict-serializable), and
/// models decided every other way (the solver's graphs, the axiomatic
/// levels of `check::weak`, session and real-time orders).
const MODEL_SETS: [&[&str]; 16] = [
    &[],
    &["serializable"],
    &["snapshot-isolation"],
    &["repeatable-read"],
    &["read-committed"],
    &["read-atomic"],
    &["causal-cerone"],
    &["prefix"],
    &["PRAM"],
    &["monotonic-writes"],
    &["writes-follow-reads"],
    &["monotonic-reads"],
    &["strong-session-snapshot-isolation"],
    &["parallel-snapshot-isolation"],
    &["read-uncommitted", "update-serializable"],
    &["sequential", "linearizable"],
];

/// A number drawn from the whole input, so that a mutation anywhere may
/// change the model set and options an input is checked with.
fn variant(data: &[u8]) -> usize {
    data.iter().fold(0usize, |h, &b| {
        h.wrapping_mul(31).wrapping_add(usize::from(b))
    })
}

/// `check_history`: the whole path `isocheck check` takes on a small history:
/// the format told from the first bytes as `history::load` does (`r(`/`w(`
/// is PolySI text, an object with a string key JSON, anything else EDN),
/// the same `;;workload=` hint, then the
/// check under one of [`MODEL_SETS`] (with or without the fast paths, as
/// [`variant`] picks) and every report (human, EDN, JSON), or the
/// cas-register path for register histories, or the Jepsen checker's.
pub fn check_history(data: &[u8]) {
    let mut text = String::from_utf8_lossy(data).into_owned();
    let workload = workload_hint(&text);
    if workload.is_some() {
        let rest = text.find('\n').map_or(text.len(), |i| i + 1);
        text.replace_range(..rest, "\n");
    }
    let format = match text.trim_start().as_bytes() {
        [b'r' | b'w', b'(', ..] => Format::Polysi,
        head if chronos::looks_like_chronos(head) => Format::Chronos,
        head if json::looks_like_json(head) => Format::Json,
        _ => Format::Edn,
    };
    match parse_text(format, "fuzz-input", text, workload) {
        Ok(history) => check_and_report(&history, variant(data)),
        Err(diag) => check_diagnostic(&diag),
    }
}

fn check_and_report(history: &History, variant: usize) {
    let mut opts = CheckOptions::default();
    opts.solve.timeout = Some(CHECK_TIMEOUT);
    let models = MODEL_SETS[variant % MODEL_SETS.len()];
    if !models.is_empty() {
        opts.consistency_models = Some(models.iter().map(|m| m.to_string()).collect());
    }
    opts.no_fast_path = variant / MODEL_SETS.len() % 2 == 1;
    let outcome = isocheck::check(history, &opts).expect("the default options are valid");
    let _ = outcome.human(history, false);
    let _ = outcome.edn(history);
    let _ = outcome.json(history);
}

/// `dbcop_bincode`: dbcop's reader, then pairing, as `history::load` does.
pub fn dbcop_bincode(data: &[u8]) {
    let ops = dbcop::read(data);
    build_and_report(Format::Dbcop, data.len(), ops);
}

/// `fressian`: the Fressian decoder (one value, a stream, a map whose
/// values are skipped) and the `test.jepsen` reader, on the same bytes.
/// Besides never panicking: an error's offset lies inside the input, and
/// every decoded value's EDN reads back (unless nested past the EDN
/// reader's depth: tags add levels).
pub fn fressian(data: &[u8]) {
    use isocheck::store::{fressian as f, jepsen_file};
    let limits = f::Limits::default();
    let results = [
        f::decode(data, limits).map(|v| vec![v]),
        f::decode_all(data, limits),
        f::decode_map(data, limits, &|_| false).map(|v| vec![v]),
    ];
    for r in results {
        match r {
            Ok(values) => {
                for v in &values {
                    let text = v.to_edn();
                    if let Err(e) = edn::read_all(&text) {
                        let deep = matches!(e.problem, edn::Problem::TooDeep(_));
                        assert!(deep, "unreadable EDN ({:?}): {text}", e.problem);
                    }
                }
            }
            Err(e) => assert!(e.at <= data.len(), "{e} in {} bytes", data.len()),
        }
    }
    let _ = jepsen_file::read_test_map(
        &mut std::io::Cursor::new(data),
        &["name", "consistency-models"],
    );
}

/// What separates the client logs of one `cobra_log` input.
pub const COBRA_SEPARATOR: &[u8] = b"NEXTLOG";
/// At most this many client logs per input; the rest stays in the last one.
const COBRA_MAX_LOGS: usize = 8;

/// `cobra_log`: Cobra's reader. It only reads directories, so the input is
/// split at [`COBRA_SEPARATOR`] into client logs `T1.log`, `T2.log`, ...
/// written to a scratch directory (one per process and thread), which
/// [`cobra::read_dir`] then reads; then pairing, as `history::load` does.
pub fn cobra_log(data: &[u8]) {
    let dir = cobra_dir();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the cobra scratch directory");
    for (i, log) in split_logs(data).into_iter().enumerate() {
        std::fs::write(dir.join(format!("T{}.log", i + 1)), log).expect("write a cobra log");
    }
    let ops = cobra::read_dir(&dir);
    build_and_report(Format::Cobra, data.len(), ops);
}

/// Removes this thread's cobra scratch directory.
pub fn cobra_cleanup() {
    let _ = std::fs::remove_dir_all(cobra_dir());
}

fn cobra_dir() -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    std::env::temp_dir().join(format!(
        "isocheck-fuzz-cobra-{}-{thread}",
        std::process::id()
    ))
}

fn split_logs(mut data: &[u8]) -> Vec<&[u8]> {
    let mut logs = Vec::new();
    while logs.len() + 1 < COBRA_MAX_LOGS {
        let Some(at) = data
            .windows(COBRA_SEPARATOR.len())
            .position(|w| w == COBRA_SEPARATOR)
        else {
            break;
        };
        logs.push(&data[..at]);
        data = &data[at + COBRA_SEPARATOR.len()..];
    }
    logs.push(data);
    logs
}

/// The workload a `;;workload=<name>` first line asks for.
fn workload_hint(text: &str) -> Option<Workload> {
    let first = text.lines().next()?.strip_prefix(";;workload=")?.trim();
    match first {
        "list-append" => Some(Workload::ListAppend),
        "rw-register" => Some(Workload::RwRegister),
        _ => None,
    }
}

fn parse_and_report(format: Format, text: String, workload: Option<Workload>) {
    let len = text.len() as u64;
    match parse_text(format, "fuzz-input", text, workload) {
        Ok(history) => report_stats(&history, format, len),
        Err(diag) => check_diagnostic(&diag),
    }
}

fn build_and_report(
    format: Format,
    len: usize,
    ops: Result<isocheck::history::jepsen::Ops, HistoryError>,
) {
    let result = ops.and_then(|ops| build::build(SourceFile::new("fuzz-input", ""), ops, None));
    match result {
        Ok(history) => report_stats(&history, format, len as u64),
        Err(e) => check_diagnostic(&InputDiagnostic::new(e, None)),
    }
}

fn report_stats(history: &History, format: Format, len: u64) {
    let stats = Stats::of(history, format, len, 0.0);
    let _ = format!("{stats:?}");
}

/// Renders a diagnostic every way the CLI does, and checks its labels
/// point inside its source text.
fn check_diagnostic(diag: &InputDiagnostic) {
    let plain = render(diag, false);
    assert!(!plain.is_empty(), "empty rendering of {diag:?}");
    let _ = render(diag, true);
    let _ = diag.to_string();
    let _ = diag.location();
    if std::env::var_os("ISOCHECK_FUZZ_LAX").is_some() {
        return;
    }
    if let Some(src) = &diag.source {
        let len = src.text().len();
        for label in &diag.error.labels {
            assert!(
                label.span.end() <= len,
                "harness invariant: label {:?} ({:?}) ends past the {len}-byte source; error: {}",
                label.span,
                label.text,
                diag.error
            );
        }
    }
}
