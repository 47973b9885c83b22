//! Issue 37's first slice on a real file: the streaming list-append check
//! (`stream::StreamCheck`) fed by `OpStream`, strict serializability.
//! `stream_check FILE` prints the findings' count and the time taken.

use isocheck::history::jepsen::streaming::OpStream;
use isocheck::stream::{Options, StreamCheck};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stream_check FILE");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let name = path.clone();
    let ops = OpStream::new(&name, move || std::fs::File::open(path), Default::default());
    let mut check = StreamCheck::new(Options::default());
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
        "{count} ops, {} findings in {secs:.2} s, unknown: {:?}",
        found.findings.len(),
        found.unknown
    );
    for f in found.findings.iter().take(5) {
        println!("{f:?}");
    }
    ExitCode::SUCCESS
}
