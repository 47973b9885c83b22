//! Where the subcommands' output goes: every report, result map and table
//! is written through [`to_stdout`], [`to_stderr`] or [`write_with`], so
//! that a reader that closed the pipe ends the command quietly and a full
//! disk is one line of error, never a panic of `print!`.

use super::EXIT_INPUT;
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status when the reader of stdout or stderr closed its pipe: what a
/// shell reports for a command killed by SIGPIPE (128 + 13), the status
/// `head` users expect of a writer they stopped.
pub const EXIT_CLOSED_PIPE: u8 = 141;

/// Writes `text` to stdout and flushes it (a full disk shows at the flush).
pub fn to_stdout(text: &str) -> Result<(), ExitCode> {
    write_with(&mut io::stdout().lock(), "the output", |w| {
        w.write_all(text.as_bytes())
    })
}

/// Writes `text` to stderr, where the human report and diagnostics go.
pub fn to_stderr(text: &str) -> Result<(), ExitCode> {
    write_with(&mut io::stderr().lock(), "the report", |w| {
        w.write_all(text.as_bytes())
    })
}

/// Runs `write` on `out`, then flushes; `what` names the output in the one
/// error line. `Err` holds the exit status the command should end with.
pub fn write_with<W: Write + ?Sized>(
    out: &mut W,
    what: &str,
    write: impl FnOnce(&mut W) -> io::Result<()>,
) -> Result<(), ExitCode> {
    write(out)
        .and_then(|()| out.flush())
        .map_err(|e| failed(&e, what))
}

/// The exit status for a failed write, after saying why (unless the pipe
/// was closed: then nobody is reading, and silence is right).
fn failed(e: &io::Error, what: &str) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(EXIT_CLOSED_PIPE);
    }
    // stderr itself may be the broken or full stream: nothing more to do then.
    let _ = writeln!(io::stderr(), "error: cannot write {what}: {e}");
    ExitCode::from(EXIT_INPUT)
}

/// Ends with `code` unless `result` says a write failed, whose status wins.
pub fn status(result: Result<(), ExitCode>, code: ExitCode) -> ExitCode {
    result.err().unwrap_or(code)
}
