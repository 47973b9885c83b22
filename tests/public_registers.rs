//! Public register histories with known verdicts, checked and held to
//! them. They are other projects' data, so they stay out of the repository:
//! each test reads a checkout named by an environment variable and, without
//! it, says so and passes (`common::Need::OptIn`: even under `CI=true`, which
//! has neither checkout).
//! - `ISOCHECK_PORCUPINE`, a Porcupine checkout: the 102 etcd cas-register
//!   histories it tests itself on (`test_data/jepsen/etcd_NNN.log`, Jepsen
//!   text logs from Knossos's data), each converted by
//!   `scripts/jepsen-log-to-edn.py`, against `porcupine_test.go`'s verdicts.
//! - `ISOCHECK_ELLE_CLI`, an elle-cli checkout: the Knossos histories its
//!   test suite checks (`histories/knossos/{cas-register,mutex}/{good,bad}/`),
//!   the directory giving the verdict.

mod common;

use isocheck::history::{self, Format, Workload};
use isocheck::Validity;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `(log number, linearizable)` pairs of Porcupine's
/// `checkJepsen(t, N, true|false)` calls.
fn expected_verdicts(test_go: &str) -> Vec<(u32, bool)> {
    test_go
        .lines()
        .filter_map(|line| {
            let args = line.trim().strip_prefix("checkJepsen(t, ")?;
            let (number, rest) = args.split_once(", ")?;
            let linearizable = match rest.strip_suffix(')')? {
                "true" => true,
                "false" => false,
                _ => return None,
            };
            Some((number.parse().ok()?, linearizable))
        })
        .collect()
}

/// One log as EDN, by the repository's converter.
fn convert(log: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/jepsen-log-to-edn.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(log)
        .output()
        .unwrap_or_else(|e| panic!("python3 {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{}: {}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the converter writes UTF-8")
}

/// The verdict on an EDN history of `workload` read from `text`.
fn check_text(name: &str, text: String, workload: Workload) -> Validity {
    let h = history::parse_text(Format::Edn, name, text, None)
        .unwrap_or_else(|d| panic!("{name}: {d}"));
    assert_eq!(h.workload, workload, "{name}");
    isocheck::check(&h, &Default::default())
        .expect("no model options")
        .validity()
}

fn check_log(log: &Path) -> Validity {
    check_text(
        &log.display().to_string(),
        convert(log),
        Workload::CasRegister,
    )
}

/// The checkout an environment variable names, or `None` after
/// [`common::skip`] when it is not set.
fn checkout(var: &str, what: &str) -> Option<PathBuf> {
    let root = std::env::var_os(var).map(PathBuf::from);
    if root.is_none() {
        let why = format!("set {var} to {what} to check its histories");
        common::skip(common::Need::OptIn, &why);
    }
    root
}

#[test]
fn etcd_histories_agree_with_porcupine() {
    let Some(root) = checkout("ISOCHECK_PORCUPINE", "a Porcupine checkout") else {
        return;
    };
    let test_go = std::fs::read_to_string(root.join("porcupine_test.go"))
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let expected = expected_verdicts(&test_go);
    assert!(
        !expected.is_empty(),
        "no checkJepsen calls in porcupine_test.go"
    );
    let disagreements: Vec<String> = expected
        .iter()
        .filter_map(|&(number, linearizable)| {
            let log = root.join(format!("test_data/jepsen/etcd_{number:03}.log"));
            let got = check_log(&log);
            let want = if linearizable {
                Validity::True
            } else {
                Validity::False
            };
            (got != want).then(|| format!("etcd_{number:03}: isocheck {got:?}, Porcupine {want:?}"))
        })
        .collect();
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    eprintln!(
        "{} etcd histories, every verdict Porcupine's",
        expected.len()
    );
}

#[test]
fn porcupine_verdict_lines_are_read() {
    let go = "func TestEtcdJepsen000(t *testing.T) {\n\tcheckJepsen(t, 0, false)\n}\n\
              \tcheckJepsen(t, 100, true)\n\tcheckJepsen(t, x, true)\n";
    assert_eq!(expected_verdicts(go), vec![(0, false), (100, true)]);
}

#[test]
fn knossos_histories_of_elle_cli_agree_with_their_directories() {
    let Some(root) = checkout("ISOCHECK_ELLE_CLI", "an elle-cli checkout") else {
        return;
    };
    let mut checked = 0;
    for (model, workload) in [
        ("cas-register", Workload::CasRegister),
        ("mutex", Workload::Mutex),
    ] {
        for (verdict, want) in [("good", Validity::True), ("bad", Validity::False)] {
            let dir = root.join("histories/knossos").join(model).join(verdict);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for path in entries.map(|e| e.expect("a directory entry").path()) {
                if path.extension().is_some_and(|e| e == "edn") {
                    let name = path.display().to_string();
                    let text =
                        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert_eq!(check_text(&name, text, workload), want, "{name}");
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked > 0,
        "no histories under {}/histories/knossos",
        root.display()
    );
    eprintln!("{checked} Knossos histories, every verdict elle-cli's");
}
