//! Where the subcommands' output goes: every report, result map and table
//! is written through [`to_stdout`], [`to_stderr`] or [`write_with`], so
//! that a reader that closed the pipe ends the command quietly and a full
//! disk is one line of error, never a panic of `print!`. Files go through
//! [`to_file`] (written whole or not at all, `isocheck::files`); a failure to
//! write a file or a directory is one line ([`file_failed`]) and exit
//! status 3.

use super::EXIT_INPUT;
use std::io::{self, Write};
use std::path::Path;
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

/// Writes the file `path` with `write`, whole or not at all; a failure is
/// one line naming the file, and `Err` the exit status 3.
pub fn to_file<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> Result<T, ExitCode> {
    isocheck::files::write_with(path, write).map_err(|e| file_failed(&e, path))
}

/// Reports a failed write of the file or directory `path` (anything but a
/// closed pipe) in one line; the exit status.
pub fn file_failed(e: &io::Error, path: &Path) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(EXIT_CLOSED_PIPE);
    }
    say(format_args!(
        "error: cannot write to {}: {e}",
        path.display()
    ));
    ExitCode::from(EXIT_INPUT)
}

/// The exit status for a failed write, after saying why (unless the pipe
/// was closed: then nobody is reading, and silence is right).
fn failed(e: &io::Error, what: &str) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(EXIT_CLOSED_PIPE);
    }
    say(format_args!("error: cannot write {what}: {e}"));
    ExitCode::from(EXIT_INPUT)
}

/// One line on stderr (an error, a note): when stderr itself is closed or
/// full there is nobody to tell, so the failure is dropped, not a panic.
pub fn say(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// Ends with `code` unless `result` says a write failed, whose status wins.
pub fn status(result: Result<(), ExitCode>, code: ExitCode) -> ExitCode {
    result.err().unwrap_or(code)
}
