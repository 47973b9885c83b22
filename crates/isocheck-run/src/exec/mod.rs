//! `--db exec:PROGRAM [ARGS...]`: any database, through a client program
//! of the user's that speaks the exec protocol (`protocol.rs`) on its
//! stdin and stdout. This module owns the programs' lives: each Jepsen
//! process (client) runs one program, started when the client connects and
//! ended when its connection is dropped, which `client.rs` does after every
//! `:info`, so a new process gets a new program, as Jepsen reopens a
//! client. A program that exits, crashes, writes what the protocol does not
//! allow or does not answer within [`ANSWER_TIMEOUT`] is killed: the op it
//! had been sent is `:info` (`:fail` if it was never sent). Every program's
//! stderr, each line prefixed with the program's number, and what happened
//! to each program go to `exec.log` in the run's directory. The nemesis's
//! `kill` SIGKILLs every program running, as does the end of a run that
//! gave up on some clients. A program is killed with the
//! processes it started (its process group): a wrapper script's database
//! client dies with it.
//!
//! Programs run in a process group of their own, so that a Ctrl-C at the
//! terminal reaches isocheck alone, which then gives the ops under way
//! their grace; each gets the run's directory in `ISOCHECK_RUN_DIR`.

pub mod protocol;

use crate::backend::{CommitOrder, CommitStamp, Connection, Database, DbError, Failed};
use crate::cas::Op;
use isocheck_gen::edn::{OpType, Reads};
use isocheck_gen::workload::{Mop, Value};
use protocol::{Answer, Line, Violation};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a program may take to answer a request (its start and `hello`
/// included) before it is killed and the op recorded `:info`.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a program whose stdin was closed gets to exit before it is
/// killed.
const EXIT_GRACE: Duration = Duration::from_secs(1);
/// The longest stderr line logged whole; the rest of a longer one is cut.
const MAX_STDERR_LINE: usize = 64 << 10;
/// How much of an answer a protocol violation quotes, in characters.
const QUOTED: usize = 120;
/// The log of the programs, in the run's directory.
pub const LOG: &str = "exec.log";

/// The program and its arguments, from `--db exec:...`: shell words, so
/// that arguments with spaces can be quoted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub program: String,
    pub args: Vec<String>,
    /// The text after `exec:`, as given.
    pub text: String,
}

/// Why a program cannot be run: a label for the program's name and one
/// line of help.
#[derive(Debug, PartialEq, Eq)]
pub struct NotRunnable {
    pub why: String,
    pub help: String,
}

impl Command {
    /// Splits the text after `exec:` into the program and its arguments.
    pub fn parse(text: &str) -> Result<Command, String> {
        let words =
            shlex::split(text).ok_or_else(|| format!("`exec:{text}` has an unclosed quote"))?;
        let Some((program, args)) = words.split_first() else {
            return Err(
                "`exec:` needs a program: --db exec:PROGRAM [ARGS...], e.g. \
                        --db exec:examples/exec-sqlite.py"
                    .into(),
            );
        };
        Ok(Command {
            program: program.clone(),
            args: args.to_vec(),
            text: text.to_string(),
        })
    }

    /// Where the program's name is in [`Command::text`] (all of it when
    /// quoting hides it).
    pub fn program_span(&self) -> (usize, usize) {
        match self.text.find(&self.program) {
            Some(at) => (at, self.program.len()),
            None => (0, self.text.len()),
        }
    }

    /// The program's file, found as a shell finds it (a name without `/`
    /// on `PATH`), checked to be an executable file.
    pub fn locate(&self) -> Result<PathBuf, NotRunnable> {
        let not = |why: &str, help: String| NotRunnable {
            why: why.into(),
            help,
        };
        if !self.program.contains('/') {
            let dirs = std::env::var_os("PATH").unwrap_or_default();
            return std::env::split_paths(&dirs)
                .map(|d| d.join(&self.program))
                .find(|p| executable(p).is_ok())
                .ok_or_else(|| {
                    not(
                        "not found on PATH",
                        format!(
                            "give the program's path (./{0} if it is here) or install it",
                            self.program
                        ),
                    )
                });
        }
        let path = PathBuf::from(&self.program);
        executable(&path).map(|()| path).map_err(|why| {
            let help = match why {
                "no such file" => {
                    "give the path of the client program, from here or absolute".into()
                }
                "a directory" => "give the client program inside it".into(),
                _ => format!(
                    "make it executable (chmod +x {0}, with a #! line), or name its interpreter: \
                     --db 'exec:python3 {0}'",
                    self.program
                ),
            };
            not(why, help)
        })
    }
}

/// Whether `path` is a file someone may execute; what it is otherwise.
fn executable(path: &Path) -> Result<(), &'static str> {
    let meta = std::fs::metadata(path).map_err(|_| "no such file")?;
    if meta.is_dir() {
        return Err("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("not executable");
        }
    }
    Ok(())
}

/// A database driven through client programs.
pub struct Exec {
    shared: Arc<Shared>,
}

struct Shared {
    command: Command,
    /// The `hello` line every program gets first.
    hello: String,
    list: bool,
    dir: PathBuf,
    log: Log,
    /// The programs running, by number, for the nemesis.
    live: Mutex<BTreeMap<u64, Arc<Mutex<Child>>>>,
    next: AtomicU64,
    timeout: Duration,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `exec.log`: one line per write, so the programs' lines do not mix,
/// each with the seconds since the log was opened (just before the run's
/// setup).
struct Log {
    file: Mutex<File>,
    start: Instant,
}

impl Log {
    fn line(&self, who: &str, text: &str) {
        let secs = self.start.elapsed().as_secs_f64();
        let line = format!("{secs:9.3} {who}: {text}\n");
        // A log that cannot be written loses lines, not the run.
        let _ = lock(&self.file).write_all(line.as_bytes());
    }
}

impl Exec {
    /// Client programs running `command` for the workload `workload`
    /// (`list` if its reads return lists), asked for `isolation`; their
    /// log in `dir`, which is created.
    pub fn new(
        command: Command,
        (workload, list): (&str, bool),
        isolation: Option<&str>,
        dir: &Path,
    ) -> io::Result<Exec> {
        let log = File::create(dir.join(LOG))?;
        Ok(Exec {
            shared: Arc::new(Shared {
                hello: protocol::hello(workload, isolation),
                command,
                list,
                dir: std::path::absolute(dir)?,
                log: Log {
                    file: Mutex::new(log),
                    start: Instant::now(),
                },
                live: Mutex::new(BTreeMap::new()),
                next: AtomicU64::new(0),
                timeout: ANSWER_TIMEOUT,
            }),
        })
    }

    #[cfg(test)]
    fn with_timeout(mut self, timeout: Duration) -> Exec {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.timeout = timeout;
        }
        self
    }
}

impl Database for Exec {
    /// One program, started for it alone, creates the tables.
    fn setup(&self) -> Result<(), DbError> {
        let setup_failed = |e: DbError| {
            DbError::rejected(
                "exec-setup",
                format!("the client program did not set up: {}", e.message),
            )
        };
        let mut program = Program::start(&self.shared).map_err(setup_failed)?;
        match program.exchange(protocol::SETUP) {
            Ok((Answer::Ok(_), _)) => Ok(()),
            Ok((Answer::Fail(why) | Answer::Info(why), _)) => {
                Err(setup_failed(DbError::rejected("program", why)))
            }
            Err((_, e)) => Err(setup_failed(e)),
        }
    }

    fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
        Ok(Box::new(Program::start(&self.shared)?))
    }

    fn commit_order(&self) -> CommitOrder {
        CommitOrder::Unavailable("the exec protocol carries no commit order".into())
    }

    fn kill_connections(&self) -> Result<bool, DbError> {
        self.kill_all("by the nemesis");
        Ok(true)
    }

    fn kill_name(&self) -> &'static str {
        "kill"
    }

    /// The programs of clients the run gave up on would outlive it, in
    /// process groups of their own: killed.
    fn end(&self) {
        self.kill_all("as the run ended with its op under way");
    }
}

impl Exec {
    /// SIGKILLs every program running, logging `why`.
    fn kill_all(&self, why: &str) {
        let live = lock(&self.shared.live);
        for (n, child) in live.iter() {
            let mut child = lock(child);
            let pid = child.id();
            if kill_group(&mut child) {
                let text = format!("killed {why} (pid {pid}, SIGKILL)");
                self.shared.log.line(&program_name(*n), &text);
            }
        }
    }
}

/// SIGKILLs a program and every process it started (its process group,
/// which [`Program::start`] made its own); false if it had exited. Only
/// while the program is not reaped: till then no other group can have its
/// id.
fn kill_group(child: &mut Child) -> bool {
    if !matches!(child.try_wait(), Ok(None)) {
        return false;
    }
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) reads and writes no memory of this process.
        if unsafe { libc::kill(-pid, libc::SIGKILL) } == 0 {
            return true;
        }
    }
    child.kill().is_ok()
}

fn program_name(n: u64) -> String {
    format!("program {n}")
}

/// What went wrong in an exchange: the request never reached the program
/// (the op did not happen), or it did and no valid answer came (unknown).
enum Trouble {
    NotSent(DbError),
    Unanswered(DbError),
}

impl Trouble {
    fn failed(self) -> Failed {
        match self {
            Trouble::NotSent(e) => (OpType::Fail, e),
            Trouble::Unanswered(e) => (OpType::Info, e),
        }
    }
}

/// One running program: a client's connection.
struct Program {
    shared: Arc<Shared>,
    n: u64,
    child: Arc<Mutex<Child>>,
    stdin: Option<ChildStdin>,
    answers: Receiver<io::Result<Line>>,
    /// Lines read from its stdout so far.
    lines: u64,
    /// Its last line on stderr, and whether its stderr has ended.
    last_words: Arc<Mutex<(String, bool)>>,
}

impl Program {
    /// Starts a program and greets it; an error if it cannot be started
    /// or refuses the greeting.
    fn start(shared: &Arc<Shared>) -> Result<Program, DbError> {
        let n = shared.next.fetch_add(1, Ordering::Relaxed);
        let c = &shared.command;
        let mut command = std::process::Command::new(&c.program);
        command
            .args(&c.args)
            .env("ISOCHECK_RUN_DIR", &shared.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| {
            DbError::lost("cannot-start", format!("cannot start `{}`: {e}", c.program))
        })?;
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let name = program_name(n);
        shared
            .log
            .line(&name, &format!("started (pid {})", child.id()));
        let child = Arc::new(Mutex::new(child));
        lock(&shared.live).insert(n, Arc::clone(&child));
        let (tx, answers) = mpsc::channel();
        let last_words = Arc::new(Mutex::new((String::new(), false)));
        let mut program = Program {
            shared: Arc::clone(shared),
            n,
            child,
            stdin,
            answers,
            lines: 0,
            last_words: Arc::clone(&last_words),
        };
        let spawned = stdout
            .zip(stderr)
            .ok_or_else(|| io::Error::other("no pipes"))
            .and_then(|(out, err)| {
                spawn_reader(&name, "stdout", move || read_answers(out, &tx))?;
                let shared = Arc::clone(shared);
                spawn_reader(&name, "stderr", move || {
                    log_stderr(err, &shared.log, &program_name(n), &last_words)
                })
            });
        spawned.map_err(|e| DbError::lost("cannot-start", format!("{name}: {e}")))?;
        program.greet()?;
        Ok(program)
    }

    /// Sends `hello`; the program must answer with the protocol's version.
    fn greet(&mut self) -> Result<(), DbError> {
        let hello = self.shared.hello.clone();
        let line = self.ask(&hello).map_err(|t| t.failed().1)?;
        match protocol::hello_answer(&line) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => Err(DbError::lost(
                "program-refused",
                format!("the program refused hello: {why}"),
            )),
            Err(v) => Err(self.violation(&line, v).1),
        }
    }

    /// Sends a request and reads its answer's outcome (and the line).
    fn exchange(&mut self, request: &str) -> Result<(Answer, Vec<u8>), Failed> {
        let line = self.ask(request).map_err(Trouble::failed)?;
        match protocol::answer(&line) {
            Ok((answer, _)) => Ok((answer, line)),
            Err(v) => Err(self.violation(&line, v)),
        }
    }

    /// Sends one request line and waits for one answer line.
    fn ask(&mut self, request: &str) -> Result<Vec<u8>, Trouble> {
        self.send(request.as_bytes())?;
        let got = self.answers.recv_timeout(self.shared.timeout);
        let e = match got {
            Ok(Ok(Line::Text(line))) => {
                self.lines += 1;
                return Ok(line);
            }
            Ok(Ok(Line::TooLong)) => {
                self.lines += 1;
                let v = Violation(format!(
                    "a line of at most {} MiB",
                    protocol::MAX_LINE >> 20
                ));
                self.violation(b"", v).1
            }
            Ok(Ok(Line::Eof)) | Err(RecvTimeoutError::Disconnected) => self.exited(),
            Ok(Err(e)) => {
                self.kill();
                DbError::lost(
                    "program-output",
                    format!("cannot read the program's stdout: {e}"),
                )
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                let secs = self.shared.timeout.as_secs_f64();
                let text = format!("did not answer within {secs} s: killed");
                self.log(&text);
                DbError::lost("timeout", format!("the program {text}"))
            }
        };
        Err(Trouble::Unanswered(e))
    }

    /// Writes a request; whether any of it reached the program.
    fn send(&mut self, bytes: &[u8]) -> Result<(), Trouble> {
        let gone = matches!(lock(&self.child).try_wait(), Ok(Some(_)));
        if gone {
            return Err(Trouble::NotSent(self.exited()));
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Trouble::NotSent(self.exited()));
        };
        // A program that stops reading fills the pipe and holds this
        // write; the run's watchdog still ends the run (lib.rs's GRACE).
        let mut written = 0;
        while written < bytes.len() {
            match stdin.write(&bytes[written..]) {
                Ok(0) => break,
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        match written {
            n if n == bytes.len() => Ok(()),
            0 => Err(Trouble::NotSent(self.exited())),
            // Part of the line: the program may have acted on it.
            _ => Err(Trouble::Unanswered(self.exited())),
        }
    }

    /// The error of a program that is gone: how it ended and its last
    /// line on stderr.
    fn exited(&mut self) -> DbError {
        let status = self.wait(EXIT_GRACE);
        let how = match status {
            Some(s) => format!("the program exited ({s})"),
            None => {
                self.kill();
                "the program closed its stdout: killed".into()
            }
        };
        self.log(&how);
        let words = self.last_words();
        let message = match words.is_empty() {
            true => format!("{how}, with nothing on stderr"),
            false => format!("{how}; its last line on stderr: {words}"),
        };
        DbError::lost("program-exited", message)
    }

    /// A protocol violation in `line`: the program is killed, the op is
    /// `:info`, and the error names the line and what was expected.
    fn violation(&mut self, line: &[u8], Violation(what): Violation) -> Failed {
        self.kill();
        let n = self.lines.max(1);
        let quoted = match line.is_empty() {
            true => String::new(),
            false => format!(" `{}`", protocol::excerpt(line, QUOTED)),
        };
        let message = format!("line {n} of the program's stdout{quoted}: expected {what}");
        self.log(&format!("protocol violation, killed: {message}"));
        (OpType::Info, DbError::lost("protocol-violation", message))
    }

    fn log(&self, text: &str) {
        self.shared.log.line(&program_name(self.n), text);
    }

    fn kill(&mut self) {
        kill_group(&mut lock(&self.child));
    }

    /// Waits up to `limit` for the program to exit; its status if it did.
    fn wait(&self, limit: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = lock(&self.child).try_wait() {
                return Some(status);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The program's last line on stderr, once its stderr has ended (or
    /// after a short wait).
    fn last_words(&self) -> String {
        let end = Instant::now() + EXIT_GRACE;
        loop {
            let (words, ended) = lock(&self.last_words).clone();
            if ended || Instant::now() >= end {
                return words;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Runs a request of an op; a `fail` answer keeps the program, an
    /// `info` one ends it (its process is over).
    fn op(&mut self, request: &str) -> Result<(Option<serde_json::Value>, Vec<u8>), Failed> {
        match self.exchange(request)? {
            (Answer::Ok(value), line) => Ok((value, line)),
            (Answer::Fail(why), _) => Err((OpType::Fail, DbError::rejected("program", why))),
            (Answer::Info(why), _) => Err((OpType::Info, DbError::lost("program", why))),
        }
    }
}

impl Connection for Program {
    fn transaction(&mut self, mops: &[Mop], reads: &mut Reads) -> Result<CommitStamp, Failed> {
        reads.clear();
        let list = self.shared.list;
        let (value, line) = self.op(&protocol::txn(mops, list))?;
        protocol::txn_reads(mops, list, value.as_ref(), reads)
            .map(|()| None)
            .map_err(|v| self.violation(&line, v))
    }

    /// A read changes nothing: one whose outcome is unknown is `:fail`,
    /// as `cas.rs` records it.
    fn register_op(&mut self, op: Op) -> Result<Option<Value>, Failed> {
        let result = self
            .op(&protocol::register(op))
            .and_then(|(value, line): (_, Vec<u8>)| {
                protocol::register_read(op, value.as_ref()).map_err(|v| self.violation(&line, v))
            });
        result.map_err(|(ty, e)| match op {
            Op::Read(_) => (OpType::Fail, e),
            _ => (ty, e),
        })
    }
}

impl Drop for Program {
    /// Closes the program's stdin, gives it a moment to exit, then kills
    /// it; either way it is reaped.
    fn drop(&mut self) {
        lock(&self.shared.live).remove(&self.n);
        self.stdin = None;
        let status = match self.wait(EXIT_GRACE) {
            Some(status) => status.to_string(),
            None => {
                self.kill();
                let status = lock(&self.child).wait();
                let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
                format!("{status}, killed: it did not exit when its stdin closed")
            }
        };
        self.log(&format!("ended ({status})"));
    }
}

fn spawn_reader(
    name: &str,
    pipe: &str,
    f: impl FnOnce() + Send + 'static,
) -> io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("isocheck-{name}-{pipe}").replace(' ', "-"))
        .spawn(f)
}

/// Passes the program's stdout on, a line at a time, until it ends, a line
/// is too long or nobody listens.
fn read_answers(out: impl io::Read, tx: &mpsc::Sender<io::Result<Line>>) {
    let mut out = BufReader::new(out);
    loop {
        let line = protocol::read_line(&mut out, protocol::MAX_LINE);
        let last = !matches!(line, Ok(Line::Text(_)));
        if tx.send(line).is_err() || last {
            return;
        }
    }
}

/// Copies the program's stderr into the log, keeping its last line.
fn log_stderr(err: impl io::Read, log: &Log, who: &str, last: &Mutex<(String, bool)>) {
    let mut err = BufReader::new(err);
    loop {
        let text = match protocol::read_line(&mut err, MAX_STDERR_LINE) {
            Ok(Line::Text(line)) => protocol::excerpt(&line, MAX_STDERR_LINE),
            Ok(Line::TooLong) => match protocol::skip_line(&mut err) {
                Ok(_) => "(a line longer than 64 KiB, not logged)".into(),
                Err(_) => break,
            },
            Ok(Line::Eof) | Err(_) => break,
        };
        log.line(who, &text);
        if !text.trim().is_empty() {
            lock(last).0 = text;
        }
    }
    lock(last).1 = true;
}

#[cfg(test)]
mod tests;
