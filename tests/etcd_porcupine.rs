//! The public etcd cas-register histories Porcupine tests itself on (its
//! `test_data/jepsen/etcd_NNN.log`, Jepsen text logs from Knossos's data):
//! each converted by `scripts/jepsen-log-to-edn.py` and checked, and the
//! verdict held to the one `porcupine_test.go` expects. The histories are
//! Porcupine's, not ours, so they stay out of the repository: set
//! `ISOCHECK_PORCUPINE` to a Porcupine checkout to run this test; without it
//! the test says so and passes.

use isocheck::check::lwt;
use isocheck::check::Validity;
use isocheck::history::{self, Format, Workload};
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

fn check_log(log: &Path) -> Validity {
    let name = log.display().to_string();
    let h = history::parse_text(Format::Edn, &name, convert(log), None)
        .unwrap_or_else(|d| panic!("{name}: {d}"));
    assert_eq!(h.workload, Workload::CasRegister, "{name}");
    lwt::check(&h).validity()
}

#[test]
fn etcd_histories_agree_with_porcupine() {
    let Some(root) = std::env::var_os("ISOCHECK_PORCUPINE").map(PathBuf::from) else {
        eprintln!("skipped: set ISOCHECK_PORCUPINE to a Porcupine checkout to check its etcd histories");
        return;
    };
    let test_go = std::fs::read_to_string(root.join("porcupine_test.go"))
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let expected = expected_verdicts(&test_go);
    assert!(!expected.is_empty(), "no checkJepsen calls in porcupine_test.go");
    let disagreements: Vec<String> = expected
        .iter()
        .filter_map(|&(number, linearizable)| {
            let log = root.join(format!("test_data/jepsen/etcd_{number:03}.log"));
            let got = check_log(&log);
            let want = if linearizable { Validity::True } else { Validity::False };
            (got != want).then(|| format!("etcd_{number:03}: isocheck {got:?}, Porcupine {want:?}"))
        })
        .collect();
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    eprintln!("{} etcd histories, every verdict Porcupine's", expected.len());
}

#[test]
fn porcupine_verdict_lines_are_read() {
    let go = "func TestEtcdJepsen000(t *testing.T) {\n\tcheckJepsen(t, 0, false)\n}\n\
              \tcheckJepsen(t, 100, true)\n\tcheckJepsen(t, x, true)\n";
    assert_eq!(expected_verdicts(go), vec![(0, false), (100, true)]);
}
