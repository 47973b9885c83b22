//! Reads a Jepsen EDN history's ops two ways, for BENCHMARKS.md ("Streaming
//! the ops"): `stream FILE` one op at a time (`jepsen::streaming`), `whole
//! FILE` as `isocheck check` does (the file mapped, then `jepsen::read_ops`
//! on every core). Prints the ops, micro-ops and seconds.
//!
//! ```sh
//! cargo build --release -p isocheck --example stream_ops
//! /usr/bin/time -f "%e s %M KB" target/release/examples/stream_ops stream history.edn
//! ```

use isocheck::history::jepsen::read_ops;
use isocheck::history::jepsen::streaming::OpStream;
use isocheck::history::Input;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, path) = match args.as_slice() {
        [mode, path] => (mode.as_str(), PathBuf::from(path)),
        _ => {
            eprintln!("usage: stream_ops stream|whole FILE");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let counted = match mode {
        "stream" => stream(path),
        "whole" => whole(path),
        _ => Err(format!("no mode {mode}: stream or whole")),
    };
    match counted {
        Ok((ops, mops)) => {
            let secs = started.elapsed().as_secs_f64();
            let rate = ops as f64 / secs;
            println!("{mode}: {ops} ops, {mops} micro-ops in {secs:.2} s: {rate:.0} ops/s");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Ops and micro-ops, one op at a time.
fn stream(path: PathBuf) -> Result<(usize, usize), String> {
    let name = path.display().to_string();
    let stream = OpStream::new(&name, move || std::fs::File::open(path), Default::default());
    let (mut ops, mut mops) = (0, 0);
    for op in stream {
        let op = op.map_err(|e| e.to_string())?;
        ops += 1;
        mops += op.txn().len();
    }
    Ok((ops, mops))
}

/// Ops and micro-ops, the whole file at once.
fn whole(path: PathBuf) -> Result<(usize, usize), String> {
    let text = Input::read(&path, None)
        .and_then(Input::into_text)
        .map_err(|e| e.to_string())?;
    let ops = read_ops(&text).map_err(|e| e.to_string())?;
    Ok((ops.ops.len(), ops.mops.len()))
}
