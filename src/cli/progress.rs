//! Progress on stderr for long checks, only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// Inputs smaller than this finish too fast for progress to help.
const WORTH_SHOWING: u64 = 20_000_000;

pub struct Progress {
    start: Instant,
    on: bool,
}

impl Progress {
    pub fn new(input_bytes: u64) -> Progress {
        Progress {
            start: Instant::now(),
            on: input_bytes >= WORTH_SHOWING && std::io::stderr().is_terminal(),
        }
    }

    /// Progress on a terminal, whatever the input size (for work made of
    /// many inputs).
    pub fn on_terminal() -> Progress {
        Progress {
            start: Instant::now(),
            on: std::io::stderr().is_terminal(),
        }
    }

    pub fn phase(&self, what: &str) {
        if self.on {
            let secs = self.start.elapsed().as_secs_f64();
            // A terminal that went away loses the line, nothing more.
            let _ = write!(std::io::stderr(), "\r\x1b[2K[{secs:6.1}s] {what}…");
            let _ = std::io::stderr().flush();
        }
    }

    pub fn done(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}
