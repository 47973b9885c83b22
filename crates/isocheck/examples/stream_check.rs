//! Issue 37's first slice on a real file: the streaming list-append check
//! (`stream::StreamCheck`) fed by `OpStream`, strict serializability.
//! `stream_check FILE [WINDOW]` prints the findings' count and the time
//! taken; `-` reads standard input, and WINDOW (transactions) retires what
//! leaves it.

use isocheck::history::jepsen::streaming::OpStream;
use isocheck::stream::{Options, StreamCheck};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stream_check FILE [WINDOW]");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let name = path.clone();
    let window = std::env::args().nth(2).and_then(|w| w.parse().ok());
    let input = move || -> std::io::Result<Box<dyn std::io::Read + Send>> {
        match path.as_str() {
            "-" => Ok(Box::new(std::io::stdin())),
            _ => Ok(Box::new(std::fs::File::open(&path)?)),
        }
    };
    let ops = OpStream::new(&name, input, Default::default());
    let mut check = StreamCheck::new(Options {
        window: window.unwrap_or(u64::MAX),
        ..Options::default()
    });
    let mut count = 0usize;
    for op in ops {
        let op = match op {
            Ok(op) => op,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        check.op(&op.op, op.txn(), |m| op.read_list(m));
        count += 1;
    }
    let found = check.finish();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{count} ops, {} findings in {secs:.2} s, {} of {} transactions retired, unknown: {:?}",
        found.findings.len(),
        found.retired,
        found.txns,
        found.unknown
    );
    for f in found.findings.iter().take(5) {
        println!("{f:?}");
    }
    ExitCode::SUCCESS
}
