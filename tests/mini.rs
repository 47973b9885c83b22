//! Mini-transactions: the fast path against the general path on the
//! fourteen anomaly fixtures of the MTC paper (`fixtures/mini/`, each with a
//! valid counterpart) and on thousands of random mini-transaction
//! histories, valid and not.

mod common;

use common::Rng;
use isocheck::history::{parse_edn, History};
use isocheck::internals::check::{self, CheckOptions, Path, Validity};
use std::fmt::Write;

/// `(valid?, anomaly types, not)` and the path that decided.
fn check(
    h: &History,
    opts: &CheckOptions,
    fast: bool,
) -> ((Validity, Vec<String>, Vec<String>), Path) {
    let opts = CheckOptions {
        no_fast_path: !fast,
        ..opts.clone()
    };
    let a = check::analyze(h, &opts).expect("valid options");
    let v = check::verdict::verdict(&a);
    let types = v.anomaly_types().map(String::from).collect();
    let not = v.not.iter().map(|s| s.to_string()).collect();
    ((v.valid, types, not), a.path)
}

/// The `Options:` of a fixture's first line: `-m a,b` and `-a x,y`.
fn options(header: &str) -> CheckOptions {
    let words: Vec<&str> = header
        .split("Options: ")
        .nth(1)
        .expect("an Options: header")
        .split_whitespace()
        .collect();
    let list = |flag: &str| {
        words
            .windows(2)
            .find(|w| w[0] == flag)
            .map(|w| w[1].split(',').map(String::from).collect::<Vec<_>>())
    };
    CheckOptions {
        consistency_models: list("-m"),
        anomalies: list("-a").unwrap_or_default(),
        ..CheckOptions::default()
    }
}

/// `; Expect: {:valid? false, :anomaly-types [:G1a]}` → (false, ["G1a"]).
fn expected(line: &str) -> (Validity, Vec<String>) {
    let valid = if line.contains(":valid? true") {
        Validity::True
    } else {
        Validity::False
    };
    let types = line
        .split(":anomaly-types [")
        .nth(1)
        .map(|rest| {
            rest.split(']')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .map(|t| t.trim_start_matches(':').to_string())
                .collect()
        })
        .unwrap_or_default();
    (valid, types)
}

const ANOMALIES: [&str; 14] = [
    "thin-air-read",
    "aborted-read",
    "future-read",
    "not-my-last-write",
    "not-my-own-write",
    "intermediate-read",
    "non-repeatable-read",
    "session-guarantee",
    "non-monotonic-read",
    "fractured-read",
    "causality-violation",
    "long-fork",
    "lost-update",
    "write-skew",
];

fn fixture(name: &str) -> (String, History) {
    let rel = format!("fixtures/mini/{name}.edn");
    let path = format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("fixture");
    let h = parse_edn(&rel, &text).expect("parses");
    (text, h)
}

#[test]
fn fourteen_anomalies_and_their_valid_counterparts() {
    let mut report = String::new();
    for name in ANOMALIES {
        for file in [name.to_string(), format!("{name}-valid")] {
            let (text, h) = fixture(&file);
            let mut lines = text.lines();
            let opts = options(lines.next().unwrap_or(""));
            let (valid, types) = expected(lines.next().unwrap_or(""));
            let (fast, path) = check(&h, &opts, true);
            let (general, _) = check(&h, &opts, false);
            assert_eq!(fast, general, "{file}: the paths disagree");
            assert_eq!((fast.0, fast.1.clone()), (valid, types), "{file}");
            let want_path = match valid {
                Validity::True => matches!(path, Path::Mini { .. }),
                _ => path == Path::MiniHandedOver,
            };
            assert!(want_path, "{file}: decided by {path:?}");
            if valid == Validity::False {
                let a = check::analyze(&h, &opts).expect("valid options");
                let v = check::verdict::verdict(&a);
                let human = isocheck::report::human::render(&h, &a, &v, false);
                let _ = write!(report, "=== {file}\n{human}\n");
            }
        }
    }
    insta::assert_snapshot!("mini_anomalies_human", report);
}

/// A random mini-transaction history: transactions commit one after
/// another over 1–3 keys, each reading one or two keys and writing some of
/// them; a read usually sees the latest committed version and sometimes an
/// older one (or a write that failed, or that a transaction overwrote), so
/// some histories are valid and others hold every kind of anomaly. Times
/// overlap a little, and a process may run late, so real-time and session
/// orders matter too.
fn random_history(seed: u64) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let keys = 1 + r.below(3);
    let n = 2 + r.below(7);
    let processes = 1 + r.below(4);
    // Per key, every version written so far (0 = nil).
    let mut versions: Vec<Vec<u64>> = vec![vec![0]; keys as usize];
    let mut next = 1u64;
    let mut events: Vec<(u64, String)> = Vec::new();
    let mut free = vec![0u64; processes as usize];
    for i in 0..n {
        let p = r.below(processes) as usize;
        let commit = 10 * (i + 1);
        let invoke = free[p].max(commit.saturating_sub(r.below(25)));
        let complete = invoke.max(commit) + r.below(25);
        free[p] = complete + 1;
        let status = match r.below(12) {
            0 => "fail",
            1 => "info",
            _ => "ok",
        };
        let mut touched: Vec<u64> = vec![r.below(keys)];
        if keys > 1 && r.below(2) == 0 {
            touched.push((touched[0] + 1 + r.below(keys - 1)) % keys);
        }
        let (mut done, mut asked) = (Vec::new(), Vec::new());
        for &k in &touched {
            let vs = &versions[k as usize];
            let seen = match r.below(6) {
                0 => vs[r.below(vs.len() as u64) as usize],
                _ => *vs.last().unwrap_or(&0),
            };
            let shown = if seen == 0 {
                "nil".to_string()
            } else {
                seen.to_string()
            };
            done.push(format!("[:r {k} {shown}]"));
            asked.push(format!("[:r {k} nil]"));
        }
        for &k in &touched {
            if r.below(2) == 0 {
                continue;
            }
            let writes = 1 + u64::from(touched.len() == 1 && r.below(5) == 0);
            for _ in 0..writes {
                done.push(format!("[:w {k} {next}]"));
                asked.push(format!("[:w {k} {next}]"));
                // Failed writes and overwritten ones stay readable on
                // purpose: reading them is G1a or G1b.
                versions[k as usize].push(next);
                next += 1;
            }
        }
        let value = if status == "info" { &asked } else { &done };
        events.push((
            invoke,
            format!(
                ":type :invoke, :f :txn, :value [{}], :process {p}",
                asked.join(" ")
            ),
        ));
        events.push((
            complete,
            format!(
                ":type :{status}, :f :txn, :value [{}], :process {p}",
                value.join(" ")
            ),
        ));
    }
    events.sort_by_key(|(t, _)| *t);
    events
        .iter()
        .enumerate()
        .map(|(i, (t, rest))| format!("{{:index {i}, :time {t}, {rest}}}\n"))
        .collect()
}

#[test]
fn fast_and_general_paths_agree_on_random_histories() {
    let models = [
        "serializable",
        "snapshot-isolation",
        "strict-serializable",
        "strong-session-snapshot-isolation",
        "read-committed",
    ];
    let (mut fast_valid, mut handed_over) = (0, 0);
    for seed in 0..3000u64 {
        let text = random_history(seed);
        let Ok(h) = parse_edn("random.edn", &text) else {
            panic!("seed {seed}: does not parse:\n{text}");
        };
        for model in models {
            let opts = CheckOptions {
                consistency_models: Some(vec![model.to_string()]),
                ..CheckOptions::default()
            };
            let (fast, path) = check(&h, &opts, true);
            let (general, _) = check(&h, &opts, false);
            assert_eq!(fast, general, "seed {seed}, {model}:\n{text}");
            match path {
                Path::Mini { .. } => fast_valid += 1,
                Path::MiniHandedOver => handed_over += 1,
                // Mini-transaction histories without timestamps.
                Path::General | Path::Timestamps { .. } => {}
            }
        }
    }
    eprintln!("{fast_valid} decided by the fast path, {handed_over} handed over");
    // Both outcomes of the fast path are exercised, many times each.
    assert!(
        fast_valid > 2000 && handed_over > 2000,
        "{fast_valid} fast, {handed_over} handed over"
    );
}
