//! What the tests of `isocheck run` share: running the binary, scratch
//! stores, the check that every invocation has its completion, and the
//! check of the report a run writes beside its history.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn isocheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run isocheck")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isocheck-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Per process, each invocation is completed before the process invokes
/// again, and none is left open. Returns (client invocations, nemesis ops).
pub fn completions(history: &str) -> (usize, usize) {
    let mut open = std::collections::HashMap::new();
    let (mut invocations, mut nemesis) = (0, 0);
    for line in history.lines() {
        let field = |key: &str| {
            let at = line.find(key).expect(key) + key.len();
            line[at..].split([',', '}']).next().expect("value").trim()
        };
        let process = field(":process ");
        if process == ":nemesis" {
            nemesis += 1;
            continue;
        }
        let invoke = field(":type ") == ":invoke";
        let was_open = open.insert(process.to_string(), invoke).unwrap_or(false);
        assert_ne!(invoke, was_open, "process {process} at {line}");
        invocations += usize::from(invoke);
    }
    assert!(open.values().all(|&o| !o), "an invocation never completed");
    (invocations, nemesis)
}

/// A TCP listener on 127.0.0.1 that accepts every connection and never
/// answers (it holds them open); `forward` connections first are passed
/// through to `upstream` instead, both ways. Returns its port.
pub fn silent_listener(forward: usize, upstream: Option<&str>) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let port = listener.local_addr().expect("its address").port();
    let upstream = upstream.map(str::to_string);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for (i, conn) in listener.incoming().enumerate() {
            let Ok(conn) = conn else { continue };
            match &upstream {
                Some(to) if i < forward => pass_through(conn, to),
                _ => held.push(conn),
            }
        }
    });
    port
}

/// Copies bytes both ways between `conn` and a new connection to `to`.
fn pass_through(conn: std::net::TcpStream, to: &str) {
    let Ok(server) = std::net::TcpStream::connect(to) else {
        return;
    };
    let (Ok(mut conn2), Ok(mut server2)) = (conn.try_clone(), server.try_clone()) else {
        return;
    };
    let (mut conn, mut server) = (conn, server);
    std::thread::spawn(move || std::io::copy(&mut conn, &mut server));
    std::thread::spawn(move || std::io::copy(&mut server2, &mut conn2));
}

/// Waits for `child` at most `bound`; kills it and fails if it is still
/// running then. Its output, and how long it took.
pub fn finishes_within(
    mut child: std::process::Child,
    bound: std::time::Duration,
) -> (Output, std::time::Duration) {
    let start = std::time::Instant::now();
    while child.try_wait().expect("poll isocheck").is_none() {
        if start.elapsed() > bound {
            let _ = child.kill();
            let out = child.wait_with_output().expect("killed isocheck");
            panic!(
                "isocheck run still running after {bound:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let took = start.elapsed();
    (child.wait_with_output().expect("isocheck's output"), took)
}

/// Starts `isocheck run` with `args` (stdout and stderr piped).
pub fn spawn_run(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .arg("run")
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start isocheck run")
}

/// Waits (at most two minutes) until a run of `store` has recorded an op,
/// and returns its history's path.
pub fn first_ops(store: &Path) -> PathBuf {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let found = std::fs::read_dir(store)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|test| {
                std::fs::read_dir(test.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .map(|run| run.path().join("history.edn"))
            .find(|h| h.metadata().is_ok_and(|m| m.len() > 0));
        if let Some(history) = found {
            return history;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no op recorded after two minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Sends SIGINT to `child`, as Ctrl-C does.
#[cfg(unix)]
pub fn interrupt(child: &std::process::Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(sent.success());
    delivered(child.id());
}

/// Waits (up to 10 s) until no SIGINT is pending for process `pid`: a
/// second Ctrl-C sent while the first is still pending (the process not
/// yet scheduled, on a loaded machine) merges with it, and the run sees
/// one. Linux's `/proc/PID/status` shows what is pending; elsewhere this
/// waits for nothing.
fn delivered(pid: u32) {
    const SIGINT_BIT: u64 = 1 << 1;
    let pending = || -> bool {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return false;
        };
        status
            .lines()
            .filter_map(|l| {
                l.strip_prefix("ShdPnd:")
                    .or_else(|| l.strip_prefix("SigPnd:"))
            })
            .filter_map(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .any(|mask| mask & SIGINT_BIT != 0)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while pending() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// `isocheck check -m model` of a history succeeds (valid).
pub fn checks_valid(history: &Path, model: &str) {
    let path = history.to_str().expect("utf-8 path");
    let out = isocheck(&["check", "-m", model, path]);
    assert!(
        out.status.success(),
        "check {path}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

/// Runs `isocheck run` into `store` and returns its output and the run's
/// directory (`latest`).
pub fn run(store: &Path, args: &[&str]) -> (Output, PathBuf) {
    let mut all = vec!["run", "--store", store.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    (isocheck(&all), store.join("latest"))
}

/// `recheck` of the store agrees with each of its `runs` runs' results.
pub fn recheck_agrees(store: &Path, runs: usize) {
    let recheck = isocheck(&["recheck", store.to_str().expect("utf-8")]);
    let table = String::from_utf8_lossy(&recheck.stdout).into_owned();
    assert!(recheck.status.success(), "{table}{}", stderr(&recheck));
    let agree = format!("{runs} agree, 0 disagree");
    assert!(table.contains(&agree), "{table}");
}

/// The report `isocheck run` wrote into the run directory `dir` of a
/// history with `completed` client ops: `index.html`, the explanations
/// when `invalid` (and not otherwise), and the two plots, well-formed SVG,
/// the latency plot with a point per completed op. The plots' text, for
/// more checks.
pub fn report_is_written(dir: &Path, completed: usize, invalid: bool) -> (String, String) {
    let page = read(&dir.join("index.html"));
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        &page[..page.len().min(200)]
    );
    let explanations = dir.join("explanations");
    assert_eq!(explanations.is_dir(), invalid, "{}", explanations.display());
    if invalid {
        let txt = std::fs::read_dir(&explanations)
            .expect("explanations")
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "txt"))
            .count();
        assert!(txt > 0, "no <anomaly>.txt in {}", explanations.display());
    }
    let latency = read(&dir.join("latency-raw.svg"));
    let rate = read(&dir.join("rate.svg"));
    for svg in [&latency, &rate] {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }
    let doc = roxmltree::Document::parse(&latency).expect("XML");
    let points = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(points, completed, "a point per completed op");
    (latency, rate)
}
