//! The streaming register check (`stream::RegisterStream`) on a real file,
//! until the CLI takes it: `stream_register FILE [WINDOW]` prints the ops
//! taken, the findings, the keys and the time taken; `-` reads standard
//! input, and WINDOW (ops per key) bounds what each key holds.

use isocheck::history::jepsen::streaming::OpStream;
use isocheck::stream::RegisterStream;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stream_register FILE [WINDOW]");
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
    let mut ops = OpStream::new(&name, input, Default::default());
    let mut check = RegisterStream::new(window.unwrap_or(u64::MAX));
    let (mut count, mut found) = (0usize, Vec::new());
    while let Some(op) = ops.next() {
        let taken = op.and_then(|op| check.op(&op, ops.values()));
        if let Err(e) = taken {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        found.extend(check.drain());
        count += 1;
    }
    let mut end = check.finish();
    found.append(&mut end.findings);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{count} ops, {} findings in {secs:.2} s, {} keys, {} cuts and retirements, {} unknown: {:?}",
        found.len(),
        end.keys,
        end.retired,
        end.unknown.len(),
        end.unknown.first()
    );
    for f in found.iter().take(5) {
        println!("{f:?}");
    }
    ExitCode::SUCCESS
}
