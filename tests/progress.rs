//! Progress on stderr: a bar whose fraction or count moves on a terminal
//! (through `script`'s pseudo-terminal), plain lines through a pipe once
//! work is long, nothing for short work, and `-v`'s stage lines as the
//! stages begin. `ISOCHECK_PROGRESS=SECONDS` makes "long" a fraction of a
//! second here, so that the tests stay short.

mod common;

use common::{skip, Need, TempPath};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_isocheck");
const SHORT: &str = "fixtures/check/rw-forced.edn";

fn isocheck(args: &[&str], progress: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env_remove("ISOCHECK_PROGRESS");
    if let Some(p) = progress {
        cmd.env("ISOCHECK_PROGRESS", p);
    }
    cmd.output().expect("run isocheck")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A generated history that takes a debug build a few seconds to check.
fn long_history(name: &str) -> TempPath {
    let path = TempPath::new(name);
    let out = path.to_str().expect("UTF-8 path");
    let o = isocheck(
        &[
            "gen",
            "list-append",
            "--txns",
            "40000",
            "--seed",
            "7",
            "-o",
            out,
        ],
        Some("off"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    path
}

/// The numbers the bar showed before a percent sign or a unit.
fn shown_values(screen: &str) -> Vec<String> {
    let mut values = Vec::new();
    let bytes: Vec<char> = screen.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        if *c != '%' {
            continue;
        }
        let digits: String = bytes[..i]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !digits.is_empty() {
            values.push(digits);
        }
    }
    values
}

#[test]
fn on_a_terminal_a_long_check_shows_a_fraction_that_moves() {
    let has_script = Command::new("script").arg("--version").output();
    if !has_script.is_ok_and(|o| o.status.success()) {
        skip(Need::Device, "`script` (util-linux) is not installed");
        return;
    }
    let history = long_history("progress-pty.edn");
    let history = history.to_str().expect("UTF-8 path");
    let command = format!("{BIN} check -m serializable {history}");
    let o = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("ISOCHECK_PROGRESS", "0.05")
        .env("NO_COLOR", "1")
        .output()
        .expect("run script");
    // `script` puts the terminal's output, stderr included, on its stdout.
    let screen = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{screen}");
    let mut values = shown_values(&screen);
    values.dedup();
    assert!(
        values.len() >= 2,
        "the bar showed {values:?}, not a moving fraction:\n{screen}"
    );
}

#[test]
fn through_a_pipe_a_short_check_prints_nothing_extra() {
    let quiet = isocheck(&["check", SHORT], Some("off"));
    let piped = isocheck(&["check", SHORT], None);
    assert_eq!(piped.status.code(), quiet.status.code());
    assert_eq!(stderr(&piped), stderr(&quiet));
    assert!(!stderr(&piped).contains("s] "), "{}", stderr(&piped));
}

#[test]
fn through_a_pipe_long_work_prints_a_line_every_so_often() {
    let history = long_history("progress-pipe.edn");
    let history = history.to_str().expect("UTF-8 path");
    let o = isocheck(
        &["check", "-m", "serializable", "--format", "edn", history],
        Some("0.05"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(
        lines.iter().any(|l| l.contains("% (") || l.contains(": ")),
        "{err}"
    );
    // The result map on stdout is untouched.
    assert!(String::from_utf8_lossy(&o.stdout).starts_with('{'));
}

#[test]
fn verbose_prints_each_stage_as_it_begins() {
    let o = isocheck(&["check", "-v", "-m", "serializable", SHORT], Some("off"));
    let err = stderr(&o);
    let stages: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with('['))
        .filter_map(|l| l.split_once("] ").map(|(_, s)| s))
        .collect();
    let at = |s: &str| stages.iter().position(|x| x.starts_with(s));
    let (reading, inferring, report) = (
        at("reading the history"),
        at("inferring dependencies"),
        at("writing the report"),
    );
    assert!(reading < inferring && inferring < report, "{err}");
    assert!(reading.is_some(), "{err}");
    // The stage lines come before the report, not after it.
    let first_stage = err.find("] reading").unwrap_or(usize::MAX);
    let verdict = err.find("serializable").unwrap_or(0);
    assert!(first_stage < verdict, "{err}");
}

#[test]
fn gen_reports_through_a_pipe() {
    let out = TempPath::new("progress-gen.edn");
    let o = isocheck(
        &[
            "gen",
            "list-append",
            "--txns",
            "20000",
            "-o",
            out.to_str().expect("UTF-8"),
        ],
        Some("0.01"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("generating: "), "{}", stderr(&o));
    let o = isocheck(&["gen", "list-append", "--txns", "10"], None);
    assert_eq!(stderr(&o), "", "short work prints nothing");
}
