//! Re-checking a Jepsen store: finding the runs in it, reading the verdict
//! and options each run recorded, and comparing them with ours.
//!
//! A Jepsen store is a tree of run directories, each holding a
//! `history.edn`, usually a `results.edn` (the checkers' result map) and
//! the test map: in `test.jepsen` (Jepsen 0.3 on, [`jepsen_file`]), in
//! `test.fressian` (before, [`fressian`]), or in a `test.edn` a user
//! wrote. `latest`/`current` symlinks point back into the tree, so the
//! walk never follows symlinks below the root.

pub mod fressian;
pub mod jepsen_file;

use crate::check::{CheckOptions, Validity};
use crate::checkers::JepsenOptions;
use crate::history::edn::{self, Kind, Node};
use crate::history::Workload;
use crate::infer::InferOptions;
use std::io;
use std::path::{Path, PathBuf};

/// One run directory of a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The run directory, relative to the store root (`.` for the root itself).
    pub name: PathBuf,
    /// The history file.
    pub history: PathBuf,
    /// `results.edn` beside the history, when present.
    pub results: Option<PathBuf>,
    /// The files beside the history that hold the test map, in the order
    /// their options are taken ([`TestFile::ALL`]).
    pub tests: Vec<(TestFile, PathBuf)>,
}

/// A file a run records its test map in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum TestFile {
    /// `test.edn`: written by hand or by a user's own tooling; it wins.
    Edn,
    /// `test.jepsen`: Jepsen's block file (0.3 on).
    Jepsen,
    /// `test.fressian`: Jepsen's whole test map, before 0.3.
    Fressian,
}

impl TestFile {
    /// By precedence.
    pub const ALL: [TestFile; 3] = [TestFile::Edn, TestFile::Jepsen, TestFile::Fressian];

    /// The file's name (`test.edn`, `test.jepsen`, `test.fressian`).
    pub fn name(self) -> &'static str {
        match self {
            TestFile::Edn => "test.edn",
            TestFile::Jepsen => "test.jepsen",
            TestFile::Fressian => "test.fressian",
        }
    }
}

/// What a walk of a store found: its runs, sorted by name, and the paths
/// below the root it could not read (it went on past them).
#[derive(Debug, Default)]
pub struct Store {
    /// The runs, sorted by name.
    pub runs: Vec<Run>,
    /// What the walk could not read.
    pub unreadable: Vec<Unreadable>,
}

/// A directory (or entry) below the store root the walk could not read.
#[derive(Debug)]
pub struct Unreadable {
    /// Relative to the store root.
    pub name: PathBuf,
    /// Why.
    pub error: io::Error,
}

/// Every run under `root`, sorted by name. Only an unreadable root is an
/// error; the walk goes on past anything below it that cannot be read,
/// and lists those paths in [`Store::unreadable`].
pub fn walk_store(root: &Path) -> io::Result<Store> {
    let mut store = Store::default();
    let entries = std::fs::read_dir(root)?;
    visit(root, root, entries, &mut store);
    store.runs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(store)
}

impl Store {
    fn cannot_read(&mut self, root: &Path, path: &Path, error: io::Error) {
        self.unreadable.push(Unreadable {
            name: relative(root, path),
            error,
        });
    }
}

/// The runs of [`walk_store`], without the paths it could not read.
pub fn find_runs(root: &Path) -> io::Result<Vec<Run>> {
    walk_store(root).map(|s| s.runs)
}

/// `dir` relative to the store root (`.` for the root itself).
fn relative(root: &Path, dir: &Path) -> PathBuf {
    match dir.strip_prefix(root) {
        Ok(name) if name.as_os_str().is_empty() => PathBuf::from("."),
        Ok(name) => name.to_path_buf(),
        Err(_) => dir.to_path_buf(),
    }
}

fn visit(root: &Path, dir: &Path, entries: std::fs::ReadDir, store: &mut Store) {
    let history = dir.join("history.edn");
    if history.is_file() {
        let beside = |name: &str| Some(dir.join(name)).filter(|p| p.is_file());
        store.runs.push(Run {
            name: relative(root, dir),
            history,
            results: beside("results.edn"),
            tests: TestFile::ALL
                .into_iter()
                .filter_map(|t| Some(t).zip(beside(t.name())))
                .collect(),
        });
    }
    let mut subdirs = Vec::new();
    for entry in entries {
        // `file_type` does not follow symlinks: Jepsen's `latest` links
        // would otherwise visit runs twice.
        match entry.and_then(|e| Ok((e.file_type()?, e.path()))) {
            Ok((kind, path)) if kind.is_dir() => subdirs.push(path),
            Ok(_) => {}
            Err(e) => store.cannot_read(root, dir, e),
        }
    }
    for sub in subdirs {
        match std::fs::read_dir(&sub) {
            Ok(entries) => visit(root, &sub, entries, store),
            Err(e) => store.cannot_read(root, &sub, e),
        }
    }
}

/// The verdict a run recorded: Elle's result map inside `results.edn`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Recorded {
    /// `:valid?`
    pub valid: Validity,
    /// `:anomaly-types`, sorted.
    pub anomaly_types: Vec<String>,
    /// `:not`, sorted.
    pub not: Vec<String>,
}

/// Why a file of a run could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// The file is not EDN.
    #[error("{file} is not EDN: {problem} at byte {at}")]
    Syntax {
        /// Which file.
        file: &'static str,
        /// What is wrong.
        problem: String,
        /// The byte where it is.
        at: usize,
    },
    /// `results.edn` is not a map.
    #[error("results.edn is not a map")]
    NotAMap,
    #[error(
        "results.edn holds no Elle result (no entry with :anomaly-types or a workload checker)"
    )]
    /// No map in `results.edn` is Elle's.
    NoElleResult,
    /// No map in `results.edn` is this Jepsen checker's.
    #[error("results.edn holds no result of Jepsen's {0} checker")]
    NoCheckerResult(&'static str),
}

/// Checker names Jepsen tests commonly give Elle's checker (or Knossos's,
/// for register histories) in `checker/compose`, for results that hold only
/// `{:valid? true}`.
const ELLE_KEYS: &[&str] = &[
    "linear",
    "linearizable",
    "workload",
    "elle",
    "la",
    "rw",
    "append",
    "wr",
    "txn",
    "list-append",
    "rw-register",
    "cycle",
];

/// The Elle verdict in the text of a `results.edn`.
pub fn recorded_verdict(results_edn: &str) -> Result<Recorded, RecordError> {
    let forms = read("results.edn", results_edn)?;
    let top = forms.first().map(Node::untagged);
    let Some(
        top @ Node {
            kind: Kind::Map(_), ..
        },
    ) = top
    else {
        return Err(RecordError::NotAMap);
    };
    let result = elle_result(top, 3).ok_or(RecordError::NoElleResult)?;
    Ok(Recorded {
        valid: match result.get("valid?").map(|n| &n.kind) {
            Some(Kind::Bool(true)) => Validity::True,
            Some(Kind::Bool(false)) => Validity::False,
            _ => Validity::Unknown,
        },
        anomaly_types: keywords(result.get("anomaly-types")),
        not: keywords(result.get("not")),
    })
}

/// The verdict of a Jepsen checker's result map for workload `w` in the
/// text of a `results.edn`: the map nearest the top with its keys (checkers
/// compose at any depth). Such a map has no `:anomaly-types`; a set checker
/// that never saw a read records only `:valid?` and `:error`.
pub fn recorded_checker_verdict(results_edn: &str, w: Workload) -> Result<Recorded, RecordError> {
    let forms = read("results.edn", results_edn)?;
    let Some(top) = forms.first().map(Node::untagged) else {
        return Err(RecordError::NotAMap);
    };
    if !matches!(top.kind, Kind::Map(_)) {
        return Err(RecordError::NotAMap);
    }
    let (has, lacks) = crate::checkers::result_keys(w);
    let fits = |n: &Node| {
        has.iter().all(|k| n.get(k).is_some()) && lacks.iter().all(|k| n.get(k).is_none())
    };
    let mut level = vec![top];
    for _ in 0..4 {
        if let Some(found) = level.iter().find(|n| fits(n)) {
            return Ok(Recorded {
                valid: match found.get("valid?").map(|n| &n.kind) {
                    Some(Kind::Bool(true)) => Validity::True,
                    Some(Kind::Bool(false)) => Validity::False,
                    _ => Validity::Unknown,
                },
                anomaly_types: Vec::new(),
                not: Vec::new(),
            });
        }
        level = level
            .iter()
            .flat_map(|n| match &n.kind {
                Kind::Map(entries) => entries.iter().map(|(_, v)| v.untagged()).collect(),
                _ => Vec::new(),
            })
            .filter(|n| matches!(n.kind, Kind::Map(_)))
            .collect();
    }
    Err(RecordError::NoCheckerResult(w.name()))
}

fn read<'a>(file: &'static str, text: &'a str) -> Result<Vec<Node<'a>>, RecordError> {
    edn::read_all(text).map_err(|e| RecordError::Syntax {
        file,
        problem: e.problem.to_string(),
        at: e.span.start(),
    })
}

/// The map with `:anomaly-types` nearest the top (checkers compose at any
/// depth), else a workload checker's map by its usual name.
fn elle_result<'n, 'a>(map: &'n Node<'a>, depth: u32) -> Option<&'n Node<'a>> {
    let Kind::Map(entries) = &map.untagged().kind else {
        return None;
    };
    let submaps = || {
        entries
            .iter()
            .filter(|(_, v)| matches!(v.untagged().kind, Kind::Map(_)))
    };
    if let Some((_, v)) = submaps().find(|(_, v)| v.get("anomaly-types").is_some()) {
        return Some(v.untagged());
    }
    if depth > 1 {
        if let Some(found) = submaps().find_map(|(_, v)| {
            elle_result(v, depth - 1).filter(|r| r.get("anomaly-types").is_some())
        }) {
            return Some(found);
        }
    }
    submaps()
        .find(|(k, _)| matches!(k.kind, Kind::Keyword(name) if ELLE_KEYS.contains(&name)))
        .map(|(_, v)| v.untagged())
}

fn keywords(n: Option<&Node>) -> Vec<String> {
    let items = match n.map(|n| &n.untagged().kind) {
        Some(Kind::List(xs) | Kind::Vector(xs) | Kind::Set(xs)) => xs.as_slice(),
        _ => &[],
    };
    let mut names: Vec<String> = items
        .iter()
        .filter_map(|x| match x.kind {
            Kind::Keyword(k) => Some(k.to_string()),
            _ => None,
        })
        .collect();
    names.sort_unstable();
    names
}

/// Checker options a run recorded in its test map; `None` where it says
/// nothing, so the command line's value applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// The test's `:name` and `:start-time`, for display.
    pub name: Option<String>,
    /// The test's `:start-time`, as written.
    pub start_time: Option<String>,
    /// The test's `:workload` name (e.g. `append`), for display.
    pub workload: Option<String>,
    /// `:consistency-models`; `Some(vec![])` for an explicit nil.
    pub consistency_models: Option<Vec<String>>,
    /// `:anomalies`.
    pub anomalies: Option<Vec<String>>,
    /// `:sequential-keys?`
    pub sequential_keys: Option<bool>,
    /// `:linearizable-keys?`
    pub linearizable_keys: Option<bool>,
    /// `:wfr-keys?`
    pub wfr_keys: Option<bool>,
    /// Bank: `:total-amount`, `:accounts` (as EDN) and `:negative-balances?`.
    pub total_amount: Option<i64>,
    /// Bank: `:accounts`, each as EDN.
    pub accounts: Option<Vec<String>>,
    /// Bank: `:negative-balances?`
    pub negative_balances: Option<bool>,
    /// `:transaction-order :timestamps`: the rw-register history is checked
    /// with the commit order its ops carry (`isocheck run` records it
    /// where the database exposes one).
    pub commit_timestamps: bool,
}

/// The test map's keys the options are taken from.
const TEST_KEYS: &[&str] = &[
    "name",
    "start-time",
    "workload",
    "consistency-models",
    "anomalies",
    "sequential-keys?",
    "linearizable-keys?",
    "wfr-keys?",
    "total-amount",
    "accounts",
    "negative-balances?",
    "transaction-order",
];

/// Files past this size are not read for their options: a `test.fressian`
/// holds its history inline, and isocheck reads it whole.
const MAX_FRESSIAN_FILE: u64 = 512 << 20;

/// The options a run's test file records. An error names the file and
/// where in it the problem is.
pub fn read_options(kind: TestFile, path: &Path) -> Result<RunOptions, String> {
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let map = match kind {
        TestFile::Edn => {
            let text = std::fs::read_to_string(path).map_err(|e| named(&e))?;
            return recorded_options(&text).map_err(|e| named(&e));
        }
        TestFile::Jepsen => {
            let mut file = std::fs::File::open(path).map_err(|e| named(&e))?;
            jepsen_file::read_test_map(&mut file, TEST_KEYS).map_err(|e| named(&e))?
        }
        TestFile::Fressian => {
            let size = std::fs::metadata(path).map_err(|e| named(&e))?.len();
            if size > MAX_FRESSIAN_FILE {
                return Err(named(&format!(
                    "{size} bytes: isocheck reads test.fressian files up to {MAX_FRESSIAN_FILE}"
                )));
            }
            let bytes = std::fs::read(path).map_err(|e| named(&e))?;
            let keep = |k: &fressian::Value| {
                jepsen_file::key_name(k).is_some_and(|n| TEST_KEYS.contains(&n))
            };
            fressian::decode_map(&bytes, fressian::Limits::default(), &keep)
                .map_err(|e| named(&e))?
        }
    };
    fressian_options(&map).map_err(|e| named(&e))
}

/// The options of a test map read from Fressian: its wanted entries as EDN,
/// read as a `test.edn` is.
fn fressian_options(map: &fressian::Value) -> Result<RunOptions, String> {
    let fressian::Value::Map(entries) = map else {
        return Err("the test map is not a map".into());
    };
    let kept: Vec<(fressian::Value, fressian::Value)> = entries
        .iter()
        .filter(|(k, v)| {
            jepsen_file::key_name(k).is_some_and(|n| TEST_KEYS.contains(&n))
                && *v != fressian::Value::Skipped
        })
        .cloned()
        .collect();
    let text = fressian::Value::Map(kept).to_edn();
    let forms = edn::read_all(&text)
        .map_err(|e| format!("its test map could not be carried over: {}", e.problem))?;
    Ok(forms.first().map(options_of).unwrap_or_default())
}

/// The options in the text of a `test.edn`: top-level keys named as Elle's
/// checker options, which is where Jepsen test suites pass them.
pub fn recorded_options(test_edn: &str) -> Result<RunOptions, RecordError> {
    let forms = read("test.edn", test_edn)?;
    Ok(forms.first().map(options_of).unwrap_or_default())
}

/// The options a test map (EDN) records.
fn options_of(test: &Node) -> RunOptions {
    let test = test.untagged();
    let flag = |name: &str| match test.get(name).map(|n| &n.kind) {
        Some(Kind::Bool(b)) => Some(*b),
        Some(Kind::Nil) => Some(false),
        _ => None,
    };
    let names = |name: &str| {
        test.get(name).map(|n| match &n.untagged().kind {
            Kind::Keyword(k) => vec![k.to_string()],
            _ => keywords(Some(n)),
        })
    };
    let text = |name: &str| {
        test.get(name).and_then(|n| match &n.untagged().kind {
            Kind::Str(s) => Some(s.to_string()),
            _ => None,
        })
    };
    RunOptions {
        name: text("name"),
        start_time: text("start-time"),
        workload: test.get("workload").and_then(|n| match &n.kind {
            Kind::Keyword(k) | Kind::Symbol(k) => Some(k.to_string()),
            Kind::Str(s) => Some(s.to_string()),
            _ => None,
        }),
        consistency_models: names("consistency-models"),
        anomalies: names("anomalies"),
        sequential_keys: flag("sequential-keys?"),
        linearizable_keys: flag("linearizable-keys?"),
        wfr_keys: flag("wfr-keys?"),
        total_amount: test.get("total-amount").and_then(|n| n.integer().flatten()),
        accounts: test.get("accounts").and_then(|n| match &n.untagged().kind {
            Kind::List(xs) | Kind::Vector(xs) | Kind::Set(xs) => {
                Some(xs.iter().map(Node::canonical).collect())
            }
            _ => None,
        }),
        negative_balances: flag("negative-balances?"),
        commit_timestamps: test
            .get("transaction-order")
            .is_some_and(|n| matches!(&n.untagged().kind, Kind::Keyword(k) if *k == "timestamps")),
    }
}

impl RunOptions {
    /// The workload of one of Jepsen's standard checkers the run's
    /// `:workload` names, which its history is then checked as.
    pub fn checker_workload(&self) -> Option<Workload> {
        self.workload
            .as_deref()
            .and_then(Workload::of_jepsen_name)
            .filter(|w| w.is_checker())
    }

    /// The checkers' options, with what the run recorded in place.
    fn jepsen(&self, base: &JepsenOptions) -> JepsenOptions {
        JepsenOptions {
            total_amount: self.total_amount.or(base.total_amount),
            accounts: self.accounts.clone().or_else(|| base.accounts.clone()),
            negative_balances: self.negative_balances.unwrap_or(base.negative_balances),
            ..base.clone()
        }
    }

    /// `base` (the command line's options) with what the run recorded in place.
    pub fn apply(&self, base: &CheckOptions) -> CheckOptions {
        let pick = |recorded: Option<bool>, flag: bool| recorded.unwrap_or(flag);
        CheckOptions {
            consistency_models: self
                .consistency_models
                .clone()
                .or_else(|| base.consistency_models.clone()),
            anomalies: self
                .anomalies
                .clone()
                .unwrap_or_else(|| base.anomalies.clone()),
            infer: InferOptions {
                sequential_keys: pick(self.sequential_keys, base.infer.sequential_keys),
                linearizable_keys: pick(self.linearizable_keys, base.infer.linearizable_keys),
                wfr_keys: pick(self.wfr_keys, base.infer.wfr_keys),
            },
            solve: base.solve,
            no_fast_path: base.no_fast_path,
            elle_compat: base.elle_compat,
            jepsen: self.jepsen(&base.jepsen),
            check_timestamps: base.check_timestamps,
        }
    }
}

/// How our verdict relates to the recorded one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    /// The same `:valid?`, and the same anomaly types where the recorded
    /// result names them.
    Yes,
    /// The same `:valid?`, other anomaly types.
    TypesDiffer,
    /// One says true and the other false.
    No,
    /// One side is unknown and the other is not.
    Undecided,
    /// Nothing was recorded, or we could not check.
    NotCompared,
}

/// One side of a comparison: `:valid?` and the anomaly types, sorted.
pub type Answer<'a> = (Validity, &'a [String]);

impl Agreement {
    /// Compares `:valid?` and, when the recorded result names anomaly types
    /// (Elle's map does; Knossos's and Jepsen's checkers' maps do not), the
    /// anomaly types too.
    pub fn of(recorded: Option<Answer>, ours: Option<Answer>) -> Agreement {
        match (recorded, ours) {
            (Some((r, rt)), Some((o, ot))) if r == o => {
                let mut ours: Vec<&String> = ot.iter().collect();
                ours.sort_unstable();
                let theirs: Vec<&String> = rt.iter().collect();
                match rt.is_empty() || theirs == ours {
                    true => Agreement::Yes,
                    false => Agreement::TypesDiffer,
                }
            }
            (Some((Validity::Unknown, _)), Some(_)) | (Some(_), Some((Validity::Unknown, _))) => {
                Agreement::Undecided
            }
            (Some(_), Some(_)) => Agreement::No,
            _ => Agreement::NotCompared,
        }
    }

    /// The word the recheck table shows.
    pub fn name(self) -> &'static str {
        match self {
            Agreement::Yes => "yes",
            Agreement::TypesDiffer => "types",
            Agreement::No => "NO",
            Agreement::Undecided => "undecided",
            Agreement::NotCompared => "-",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elle_result_under_a_workload_key() {
        let r = recorded_verdict(
            "{:perf {:valid? true} :workload {:valid? false :anomaly-types (:G2-item :G0) \
             :not #{:serializable}} :valid? false}",
        )
        .unwrap();
        assert_eq!(r.valid, Validity::False);
        assert_eq!(r.anomaly_types, ["G0", "G2-item"]);
        assert_eq!(r.not, ["serializable"]);
    }

    #[test]
    fn elle_result_found_by_anomaly_types_at_depth() {
        let r = recorded_verdict(
            "{:stats {:valid? false} :my-checker {:inner {:valid? :unknown \
             :anomaly-types [:empty-transaction-graph]}}}",
        )
        .unwrap();
        assert_eq!(r.valid, Validity::Unknown);
        assert_eq!(r.anomaly_types, ["empty-transaction-graph"]);
    }

    #[test]
    fn a_valid_workload_result_has_only_valid() {
        let r = recorded_verdict("{:perf {:valid? true} :la {:valid? true} :valid? true}").unwrap();
        assert_eq!(r.valid, Validity::True);
        assert!(r.anomaly_types.is_empty());
    }

    #[test]
    fn results_without_elle_are_errors() {
        assert_eq!(
            recorded_verdict("{:perf {:valid? true} :valid? true}"),
            Err(RecordError::NoElleResult)
        );
        assert_eq!(recorded_verdict("[1 2]"), Err(RecordError::NotAMap));
        assert!(matches!(
            recorded_verdict("{:valid? true"),
            Err(RecordError::Syntax { .. })
        ));
    }

    #[test]
    fn options_from_test_edn_override_flags() {
        let o = recorded_options(
            "{:name \"x\" :workload :append :consistency-models [:serializable] \
             :wfr-keys? true :nodes [\"n1\"]}",
        )
        .unwrap();
        assert_eq!(o.workload.as_deref(), Some("append"));
        let base = CheckOptions {
            consistency_models: Some(vec!["strict-serializable".into()]),
            anomalies: vec!["G1".into()],
            ..Default::default()
        };
        let merged = o.apply(&base);
        assert_eq!(merged.consistency_models, Some(vec!["serializable".into()]));
        assert_eq!(merged.anomalies, ["G1"]);
        assert!(merged.infer.wfr_keys);
        assert!(!merged.infer.sequential_keys);
        assert!(!o.commit_timestamps);
        let run = recorded_options("{:transaction-order :timestamps}").unwrap();
        assert!(run.commit_timestamps, "isocheck run's commit order");
        let elle = recorded_options("{:transaction-order {0 1}}").unwrap();
        assert!(
            !elle.commit_timestamps,
            "a map is Elle's, not recorded on the ops"
        );
    }

    #[test]
    fn a_single_model_keyword_is_accepted() {
        let o = recorded_options("{:consistency-models :snapshot-isolation}").unwrap();
        assert_eq!(
            o.consistency_models,
            Some(vec!["snapshot-isolation".into()])
        );
    }

    #[test]
    fn a_checkers_result_is_found_by_its_keys() {
        // Jepsen's bank test composes its checker under :SI, beside a plot.
        let results = "{:perf {:valid? true} :workload {:SI {:valid? false :read-count 9 \
                       :error-count 2 :errors {}} :plot {:valid? true} :valid? false} :valid? false}";
        let r = recorded_checker_verdict(results, Workload::Bank).unwrap();
        assert_eq!(r.valid, Validity::False);
        assert!(r.anomaly_types.is_empty());
        // A total-queue result is not a set's, though both count attempts.
        let queue = "{:queue {:valid? true :attempt-count 3 :ok-count 3 :duplicated-count 0}}";
        assert_eq!(
            recorded_checker_verdict(queue, Workload::Set),
            Err(RecordError::NoCheckerResult("set"))
        );
        let r = recorded_checker_verdict(queue, Workload::TotalQueue).unwrap();
        assert_eq!(r.valid, Validity::True);
    }

    #[test]
    fn bank_options_from_test_edn() {
        let o = recorded_options(
            "{:workload :bank :total-amount 100 :accounts [0 1 :x] :negative-balances? true}",
        )
        .unwrap();
        assert_eq!(o.checker_workload(), Some(Workload::Bank));
        let j = o.apply(&CheckOptions::default()).jepsen;
        assert_eq!(j.total_amount, Some(100));
        assert_eq!(j.accounts, Some(vec!["0".into(), "1".into(), ":x".into()]));
        assert!(j.negative_balances);
        // Elle's workload names are not checkers'.
        let o = recorded_options("{:workload :append}").unwrap();
        assert_eq!(o.checker_workload(), None);
    }

    #[test]
    fn agreement() {
        use Validity::*;
        let none: &[String] = &[];
        let g2 = &["G2-item".to_string()];
        let g0 = &["G0".to_string(), "G2-item".to_string()];
        let of = |r: Option<(Validity, &[String])>, o| Agreement::of(r, o);
        assert_eq!(of(Some((True, none)), Some((True, none))), Agreement::Yes);
        assert_eq!(of(Some((True, none)), Some((False, g2))), Agreement::No);
        assert_eq!(
            of(Some((Unknown, none)), Some((False, g2))),
            Agreement::Undecided
        );
        assert_eq!(of(None, Some((False, g2))), Agreement::NotCompared);
        assert_eq!(of(Some((True, none)), None), Agreement::NotCompared);
        // Anomaly types count where the recorded result names them.
        assert_eq!(of(Some((False, g2)), Some((False, g2))), Agreement::Yes);
        assert_eq!(
            of(Some((False, g2)), Some((False, g0))),
            Agreement::TypesDiffer
        );
        // Knossos's and the checkers' maps name none.
        assert_eq!(of(Some((False, none)), Some((False, g0))), Agreement::Yes);
        // Ours come in any order.
        let reversed = &["G2-item".to_string(), "G0".to_string()];
        assert_eq!(
            of(Some((False, g0)), Some((False, reversed))),
            Agreement::Yes
        );
    }

    #[test]
    fn runs_are_found_without_following_symlinks() {
        let root = std::env::temp_dir().join(format!("isocheck-store-{}", std::process::id()));
        let run = root.join("test-a/20200101T000000.000Z");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("history.edn"), "").unwrap();
        std::fs::write(run.join("results.edn"), "{}").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&run, root.join("latest")).unwrap();
        let runs = find_runs(&root).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].name, Path::new("test-a/20200101T000000.000Z"));
        assert!(runs[0].results.is_some());
        assert!(runs[0].tests.is_empty());
    }
}
