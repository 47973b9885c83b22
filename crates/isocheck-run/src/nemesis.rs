//! The nemesis: faults injected while the clients run, one at a time, each
//! recorded as Jepsen's nemeses record theirs (an `:info` op on process
//! `:nemesis` when it begins, another with its outcome when it returns).
//!
//! `kill` ends the clients' connections through the database itself
//! (`:kill-connections`), or SIGKILLs an `exec` database's client programs
//! (`:kill`). `restart` and `pause` act on the server process,
//! which `isocheck run` does not own: the user names a command
//! (`--server-ctl`, e.g. `scripts/db.sh {} postgres`) that is run with `{}`
//! replaced by `kill`, `start`, `pause` or `resume`; the ops carry those
//! names, as Jepsen's database nemesis (`jepsen.nemesis.combined`) writes
//! them. A fault that takes the server away is always undone, after half
//! the interval or as soon as the clients are done, so no client waits on
//! a paused server for ever.

use super::backend::Database;
use super::recorder::Recorder;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The faults a run can inject.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// End every client connection (`pg_terminate_backend`, `KILL
    /// CONNECTION`); the clients reconnect.
    Kill,
    /// Kill the server process (`--server-ctl` with `kill`) and start it
    /// again (`start`).
    Restart,
    /// Stop the server process (`pause`, SIGSTOP) and let it go on
    /// (`resume`, SIGCONT).
    Pause,
}

impl Fault {
    /// The name `--nemesis` and `test.edn` give it.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Kill => "kill",
            Fault::Restart => "restart",
            Fault::Pause => "pause",
        }
    }

    /// Whether the fault acts on the server process (needs `--server-ctl`).
    pub fn needs_server_ctl(self) -> bool {
        self != Fault::Kill
    }
}

/// A shell command controlling the server, with `{}` where the action goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCtl(String);

impl ServerCtl {
    /// The command, or one line saying what it lacks.
    pub fn parse(command: &str) -> Result<ServerCtl, String> {
        if !command.contains("{}") {
            return Err(format!(
                "--server-ctl `{command}` has no `{{}}` for the action (kill, start, pause, \
                 resume): e.g. --server-ctl 'scripts/db.sh {{}} postgres'"
            ));
        }
        Ok(ServerCtl(command.to_string()))
    }

    /// Runs the command for `action`; what went wrong, in one line, if it
    /// did not succeed.
    fn run(&self, action: &str) -> Result<(), String> {
        let command = self.0.replace("{}", action);
        let out = Command::new("sh")
            .args(["-c", &command])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run sh: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        Err(format!(
            "`{command}` failed ({}): {}",
            out.status,
            last.unwrap_or("")
        ))
    }
}

/// What a run's nemesis does: its faults in turn, one every `interval`.
#[derive(Clone, Debug)]
pub struct Plan {
    pub faults: Vec<Fault>,
    pub interval: Duration,
    /// Required when a fault acts on the server.
    pub server_ctl: Option<ServerCtl>,
}

/// Injects `plan`'s faults in turn, `plan.interval` apart, until `done`.
pub fn run<W: Write>(plan: &Plan, db: &dyn Database, recorder: &Recorder<W>, done: &AtomicBool) {
    for fault in plan.faults.iter().cycle() {
        if !wait(plan.interval, done) {
            return;
        }
        match (fault, &plan.server_ctl) {
            (Fault::Kill, _) => kill_connections(db, recorder),
            (Fault::Restart, Some(ctl)) => hold(ctl, ("kill", "start"), plan, recorder, done),
            (Fault::Pause, Some(ctl)) => hold(ctl, ("pause", "resume"), plan, recorder, done),
            // The command line refuses these; nothing to do without a command.
            (_, None) => return,
        }
    }
}

/// Sleeps `period`, or less once `done` is set; false if it was. A
/// period past the clock's range (`--nemesis-interval 1e300`) never ends.
pub fn wait(period: Duration, done: &AtomicBool) -> bool {
    let end = Instant::now().checked_add(period);
    loop {
        if done.load(Ordering::Relaxed) {
            return false;
        }
        let left = match end {
            Some(end) => end.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        };
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// Ends the clients' connections.
fn kill_connections<W: Write>(db: &dyn Database, recorder: &Recorder<W>) {
    recorded(recorder, db.kill_name(), || match db.kill_connections() {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    });
}

/// Takes the server away with `begin`, and after half the interval (or
/// once the clients are done) brings it back with `end`, whether or not
/// `begin` succeeded.
fn hold<W: Write>(
    ctl: &ServerCtl,
    (begin, end): (&str, &str),
    plan: &Plan,
    recorder: &Recorder<W>,
    done: &AtomicBool,
) {
    recorded(recorder, begin, || ctl.run(begin));
    wait(plan.interval / 2, done);
    recorded(recorder, end, || ctl.run(end));
}

/// Records the op `f` beginning, runs `act`, and records its outcome.
fn recorded<W: Write>(recorder: &Recorder<W>, f: &str, act: impl FnOnce() -> Result<(), String>) {
    recorder.nemesis(f, None);
    let outcome = match act() {
        Ok(()) => "done".to_string(),
        Err(e) => e,
    };
    recorder.nemesis(f, Some(&outcome));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::tests::Unreachable as NoDb;
    use isocheck_gen::workload::Kind;

    #[test]
    fn a_command_needs_a_place_for_the_action() {
        assert!(ServerCtl::parse("scripts/db.sh kill postgres").is_err());
        assert!(ServerCtl::parse("scripts/db.sh {} postgres").is_ok());
    }

    /// Runs the plan's nemesis for `secs` seconds; the history and the
    /// actions the command saw, in order.
    fn nemesis_log(faults: Vec<Fault>, ctl: &str, log: &std::path::Path) -> (String, String) {
        let plan = Plan {
            faults,
            interval: Duration::from_millis(100),
            server_ctl: Some(ServerCtl::parse(ctl).unwrap()),
        };
        let mut out = Vec::new();
        let recorder = Recorder::new(&mut out, Kind::ListAppend);
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| run(&plan, &NoDb, &recorder, &done));
            std::thread::sleep(Duration::from_millis(700));
            done.store(true, Ordering::Relaxed);
        });
        recorder.close(("abandoned", "test")).unwrap();
        drop(recorder);
        let history = String::from_utf8(out).unwrap();
        (history, std::fs::read_to_string(log).unwrap_or_default())
    }

    fn scratch_log(name: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "isocheck-nemesis-{}-{name}.log",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn every_fault_is_undone_and_recorded_in_pairs() {
        let log = scratch_log("pairs");
        let ctl = format!("echo {{}} >> {}", log.display());
        let (history, actions) = nemesis_log(vec![Fault::Restart, Fault::Pause], &ctl, &log);
        let actions: Vec<&str> = actions.lines().collect();
        assert!(actions.len() >= 4, "{actions:?}");
        // Faults alternate and each is undone before the next begins.
        let expected = ["kill", "start", "pause", "resume"];
        for (i, a) in actions.iter().enumerate() {
            assert_eq!(*a, expected[i % 4], "{actions:?}");
        }
        assert_eq!(
            actions.len() % 2,
            0,
            "a fault was left in place: {actions:?}"
        );
        let lines: Vec<&str> = history.lines().collect();
        assert_eq!(lines.len(), 2 * actions.len());
        for (pair, action) in lines.chunks(2).zip(&actions) {
            let f = format!(":f :{action},");
            assert!(pair
                .iter()
                .all(|l| l.contains(&f) && l.contains(":type :info")));
            assert!(pair[0].contains(":value nil") && pair[1].contains(":value \"done\""));
        }
        let _ = std::fs::remove_file(&log);
    }

    /// Issue 34: `scripts/db.sh kill` with no server of its own fails,
    /// and the history records that failure, not a kill (`:value "done"`).
    /// Only `kill` reaches the script here (`start` would install a server).
    #[test]
    fn a_kill_of_no_server_is_recorded_as_failed() {
        let log = scratch_log("db-sh");
        let dir = std::env::temp_dir().join(format!("isocheck-db-sh-{}", std::process::id()));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/db.sh");
        let ctl = format!(
            "echo {{}} >> {log}; [ {{}} != kill ] || ISOCHECK_DB_DIR={dir} {script} {{}} mariadb",
            log = log.display(),
            dir = dir.display()
        );
        let (history, actions) = nemesis_log(vec![Fault::Restart], &ctl, &log);
        assert!(actions.starts_with("kill\nstart\n"), "{actions}");
        let kill = history
            .lines()
            .find(|l| l.contains(":f :kill,") && !l.contains(":value nil"))
            .unwrap_or_else(|| panic!("no kill outcome in {history}"));
        assert!(
            kill.contains("no MariaDB server started by db.sh"),
            "{kill}"
        );
        assert!(!kill.contains("\"done\""), "{kill}");
        let _ = std::fs::remove_file(&log);
    }

    #[test]
    fn a_failing_command_is_recorded_and_the_fault_still_undone() {
        let log = scratch_log("failing");
        let ctl = format!("echo {{}} >> {}; echo no server >&2; exit 1", log.display());
        let (history, actions) = nemesis_log(vec![Fault::Pause], &ctl, &log);
        assert!(actions.starts_with("pause\nresume\n"), "{actions}");
        assert!(history.contains("no server"), "{history}");
        assert_eq!(actions.lines().count() % 2, 0, "{actions}");
        let _ = std::fs::remove_file(&log);
    }
}
