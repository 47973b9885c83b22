//! The programs' lives, with small `sh` programs standing in for clients:
//! what each way of going wrong records, and that a dead program is
//! replaced.

use super::*;

/// A greeting's answer, for the scripts.
const HELLO_OK: &str = r#"echo '{"type":"ok","version":1}'"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isocheck-exec-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An exec database whose programs run `script` in `sh`, answering
/// within `timeout`.
fn sh(name: &str, script: &str, timeout: Duration) -> (Exec, PathBuf) {
    let dir = scratch(name);
    let command = Command {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        text: String::new(),
    };
    let exec = Exec::new(command, ("list-append", true), None, &dir).unwrap();
    (exec.with_timeout(timeout), dir)
}

/// Runs one transaction on a new connection: how it ended.
fn one_txn(exec: &Exec) -> Result<Reads, Failed> {
    let mut c = exec.connect().map_err(|e| (OpType::Fail, e))?;
    let mut reads = Reads::default();
    let stamp = c.transaction(&[Mop::Write(1, 2), Mop::Read(1)], &mut reads)?;
    assert_eq!(stamp, None, "the exec protocol carries no commit order");
    Ok(reads)
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn a_program_answers_transactions() {
    let answer = r#"{"type":"ok","value":[["append",1,2],["r",1,[2]]]}"#;
    let script = format!("read l; {HELLO_OK}; read l; echo '{answer}'; cat >/dev/null");
    let (exec, dir) = sh("ok", &script, 10 * SECOND);
    let reads = one_txn(&exec).unwrap();
    assert_eq!((reads.values, reads.spans), (vec![2], vec![(0, 0), (0, 1)]));
    let log = std::fs::read_to_string(dir.join(LOG)).unwrap();
    assert!(log.contains(" program 0: started (pid"), "{log}");
    assert!(log.contains("program 0: ended (exit status: 0)"), "{log}");
}

#[test]
fn a_crash_is_info_with_the_programs_last_words() {
    let script = format!("read l; {HELLO_OK}; read l; echo boom >&2; exit 3");
    let (exec, dir) = sh("crash", &script, 10 * SECOND);
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert_eq!((ty, e.name), (OpType::Info, "program-exited"), "{e}");
    assert!(e.message.contains("exit status: 3"), "{e}");
    assert!(e.message.contains("its last line on stderr: boom"), "{e}");
    assert!(e.broken);
    let log = std::fs::read_to_string(dir.join(LOG)).unwrap();
    assert!(log.contains("program 0: boom\n"), "{log}");
}

#[test]
fn a_request_to_a_dead_program_fails_definitely() {
    let (exec, _) = sh("dead", &format!("read l; {HELLO_OK}"), 10 * SECOND);
    let mut c = exec.connect().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (ty, e) = c
        .transaction(&[Mop::Read(1)], &mut Reads::default())
        .unwrap_err();
    assert_eq!((ty, e.name), (OpType::Fail, "program-exited"), "{e}");
    assert!(e.broken);
}

#[test]
fn garbage_is_a_violation_naming_the_line() {
    let script = format!("read l; {HELLO_OK}; read l; echo 'garbage here'; sleep 10");
    let (exec, dir) = sh("garbage", &script, 10 * SECOND);
    let start = Instant::now();
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert_eq!((ty, e.name), (OpType::Info, "protocol-violation"), "{e}");
    assert!(
        e.message
            .starts_with("line 2 of the program's stdout `garbage here`: expected one JSON object"),
        "{e}"
    );
    // Killed, not waited for.
    assert!(start.elapsed() < 5 * SECOND);
    let log = std::fs::read_to_string(dir.join(LOG)).unwrap();
    assert!(log.contains("protocol violation, killed: line 2"), "{log}");
}

#[test]
fn a_wrong_answer_is_a_violation_saying_what_was_expected() {
    let answer = r#"{"type":"ok","value":[["append",1,2]]}"#;
    let script = format!("read l; {HELLO_OK}; read l; echo '{answer}'; read l");
    let (exec, _) = sh("wrong", &script, 10 * SECOND);
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert_eq!(ty, OpType::Info);
    assert!(
        e.message
            .contains("expected \"value\" to hold the 2 micro-ops sent, not 1"),
        "{e}"
    );
}

#[test]
fn an_endless_line_is_bounded() {
    let script = format!("read l; {HELLO_OK}; read l; yes | tr -d '\\n'");
    let (exec, _) = sh("endless", &script, 30 * SECOND);
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert_eq!((ty, e.name), (OpType::Info, "protocol-violation"), "{e}");
    assert!(e.message.contains("a line of at most 8 MiB"), "{e}");
}

#[test]
fn silence_times_out_and_the_program_is_killed() {
    let script = format!("read l; {HELLO_OK}; read l; sleep 30");
    let (exec, _) = sh("silent", &script, Duration::from_millis(300));
    let start = Instant::now();
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert_eq!((ty, e.name), (OpType::Info, "timeout"), "{e}");
    assert!(start.elapsed() < 5 * SECOND, "{:?}", start.elapsed());
}

#[test]
fn fail_and_info_answers_keep_their_reason() {
    let script = format!(
        "read l; {HELLO_OK}; read l; echo '{{\"type\":\"fail\",\"error\":\"busy\"}}'; \
         read l; echo '{{\"type\":\"info\",\"error\":\"lost\"}}'; read l"
    );
    let (exec, _) = sh("reasons", &script, 10 * SECOND);
    let mut c = exec.connect().unwrap();
    let mut reads = Reads::default();
    let (ty, e) = c.transaction(&[Mop::Read(1)], &mut reads).unwrap_err();
    assert_eq!(
        (ty, e.name, e.message.as_str(), e.broken),
        (OpType::Fail, "program", "busy", false)
    );
    let (ty, e) = c.transaction(&[Mop::Read(1)], &mut reads).unwrap_err();
    // A process whose op is `:info` is over: its program too.
    assert_eq!(
        (ty, e.message.as_str(), e.broken),
        (OpType::Info, "lost", true)
    );
    // A register read changes nothing: unknown is `:fail`.
    let (exec, _) = sh("read-info", &script.replace("fail", "info"), 10 * SECOND);
    let mut c = exec.connect().unwrap();
    assert_eq!(c.register_op(Op::Read(1)).unwrap_err().0, OpType::Fail);
    assert_eq!(c.register_op(Op::Write(1, 1)).unwrap_err().0, OpType::Info);
}

#[test]
fn hello_must_name_the_version() {
    let (exec, _) = sh(
        "version",
        r#"read l; echo '{"type":"ok","version":7}'"#,
        10 * SECOND,
    );
    let e = exec.connect().err().unwrap();
    assert_eq!(e.name, "protocol-violation");
    assert!(e.message.contains("line 1 of the program's stdout"), "{e}");
    assert!(e.message.contains("not 7"), "{e}");
    let (exec, _) = sh(
        "setup",
        &format!("read l; {HELLO_OK}; read l; exit 1"),
        10 * SECOND,
    );
    let e = exec.setup().unwrap_err();
    assert_eq!(e.name, "exec-setup");
    assert!(
        e.message.contains("did not set up: the program exited"),
        "{e}"
    );
}

/// The nemesis, once a program runs and has had time to be sent its op.
fn kill_soon(exec: &Arc<Exec>) -> std::thread::JoinHandle<Result<bool, DbError>> {
    let killer = Arc::clone(exec);
    std::thread::spawn(move || {
        while lock(&killer.shared.live).is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(200));
        killer.kill_connections()
    })
}

/// A program is killed with the processes it started: here the `sleep`
/// holding its stdout, which would otherwise keep the op waiting.
#[test]
fn a_kill_takes_the_programs_children_with_it() {
    let script = format!("read l; {HELLO_OK}; read l; sleep 30");
    let (exec, _) = sh("group", &script, 60 * SECOND);
    let exec = Arc::new(exec);
    let nemesis = kill_soon(&exec);
    let start = Instant::now();
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert!(nemesis.join().unwrap().unwrap());
    assert_eq!((ty, e.name), (OpType::Info, "program-exited"), "{e}");
    assert!(start.elapsed() < 10 * SECOND, "{:?}", start.elapsed());
}

#[test]
fn the_nemesis_kills_every_program_and_they_are_replaced() {
    let answer = r#"{"type":"ok","value":[["append",1,2],["r",1,[2]]]}"#;
    let script = format!("read l; {HELLO_OK}; while read l; do sleep 1; echo '{answer}'; done");
    let (exec, dir) = sh("kill", &script, 10 * SECOND);
    let exec = Arc::new(exec);
    let nemesis = kill_soon(&exec);
    let (ty, e) = one_txn(&exec).unwrap_err();
    assert!(nemesis.join().unwrap().unwrap());
    assert_eq!((ty, e.name), (OpType::Info, "program-exited"), "{e}");
    assert!(e.message.contains("signal: 9"), "{e}");
    assert_eq!(exec.kill_name(), "kill");
    // The next connection is a new program.
    assert!(one_txn(&exec).is_ok());
    let log = std::fs::read_to_string(dir.join(LOG)).unwrap();
    assert!(
        log.contains("program 0: killed by the nemesis (pid"),
        "{log}"
    );
    assert!(log.contains("program 1: started"), "{log}");
}

#[test]
fn commands_are_shell_words_and_programs_are_located() {
    let c = Command::parse("python3 'my client.py' --x").unwrap();
    assert_eq!((c.program.as_str(), c.args.len()), ("python3", 2));
    assert_eq!(c.args[0], "my client.py");
    assert!(Command::parse("").unwrap_err().contains("needs a program"));
    assert!(Command::parse("'open")
        .unwrap_err()
        .contains("unclosed quote"));
    let sh = Command::parse("sh").unwrap();
    assert!(sh.locate().is_ok());
    let dir = scratch("locate");
    let file = dir.join("client");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    let text = file.to_str().unwrap();
    let not = Command::parse(text).unwrap().locate().unwrap_err();
    assert_eq!(not.why, "not executable");
    assert!(not.help.contains("chmod +x"), "{}", not.help);
    let missing = Command::parse(&format!("{text}-none a b")).unwrap();
    assert_eq!(missing.locate().unwrap_err().why, "no such file");
    assert_eq!(missing.program_span(), (0, text.len() + 5));
    let d = Command::parse(dir.to_str().unwrap()).unwrap();
    assert_eq!(d.locate().unwrap_err().why, "a directory");
    let nowhere = Command::parse("isocheck-no-such-program").unwrap();
    assert_eq!(nowhere.locate().unwrap_err().why, "not found on PATH");
}

/// A client the run gave up on leaves no program behind.
#[test]
fn the_end_of_a_run_kills_the_programs_left() {
    let script = format!("read l; {HELLO_OK}; read l; sleep 30");
    let (exec, dir) = sh("end", &script, 60 * SECOND);
    let exec = Arc::new(exec);
    let client = Arc::clone(&exec);
    let client = std::thread::spawn(move || one_txn(&client).map(drop));
    while lock(&exec.shared.live).is_empty() {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    exec.end();
    let (ty, e) = client.join().unwrap().unwrap_err();
    assert_eq!((ty, e.name), (OpType::Info, "program-exited"), "{e}");
    let log = std::fs::read_to_string(dir.join(LOG)).unwrap();
    assert!(
        log.contains("killed as the run ended with its op under way"),
        "{log}"
    );
}
