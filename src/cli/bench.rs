//! `isocheck bench parse|load|check`: parse throughput, load time, and
//! whole-process check time with peak memory, on a history (a generated
//! list-append one when none is given; `check --generate` generates one with
//! any `isocheck gen` arguments and times that too).

use super::output;
use isocheck::history::{self, jepsen, Format};
use isocheck_gen::{self as gen, Params};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to measure: `parse` (the EDN reader, and the whole load of an
    /// EDN file: its read, the reader and pairing), `load` (reader and
    /// pairing, any input format) or `check` (whole `isocheck check` processes,
    /// one per model).
    #[arg(value_enum)]
    pub what: BenchWhat,
    /// History to read; by default a list-append history of --mb megabytes is generated.
    #[arg(long)]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub input: super::InputArgs,
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=MAX_MB))]
    pub mb: u64,
    /// Timed runs (the best is reported).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// `check`: the consistency models to time, one process each.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "snapshot-isolation,serializable,strict-serializable"
    )]
    pub models: Vec<String>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: super::OutputFormat,
    /// `check`: first generate the history with these `isocheck gen`
    /// arguments, e.g. "rw-register --txns 100000 --level snapshot-isolation"
    /// (written to the temporary directory and kept).
    #[arg(long, conflicts_with = "file", allow_hyphen_values = true)]
    pub generate: Option<String>,
}

/// The largest history `bench` generates, in megabytes (a terabyte).
const MAX_MB: u64 = 1_000_000;

/// `isocheck gen`'s arguments on their own.
#[derive(clap::Parser, Debug)]
#[command(name = "gen", no_binary_name = true)]
struct GenOnly {
    #[command(flatten)]
    args: super::GenArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum BenchWhat {
    Parse,
    Load,
    Check,
}

#[derive(serde::Serialize)]
struct ParseBench {
    file: String,
    bytes: usize,
    ops: usize,
    transactions: usize,
    parse_seconds_best: f64,
    parse_mb_per_second: f64,
    load_seconds_best: f64,
    load_mb_per_second: f64,
    load_txns_per_second: f64,
    peak_rss_bytes: u64,
    peak_rss_over_file: f64,
}

pub fn run(a: &BenchArgs) -> ExitCode {
    let result = match a.what {
        BenchWhat::Parse => parse_bench(a).map(|b| emit(&b, a.format, parse_table)),
        BenchWhat::Load => load_bench(a).map(|b| emit(&b, a.format, load_table)),
        BenchWhat::Check => check_bench(a).map(|b| emit(&b, a.format, check_table)),
    };
    match result {
        Ok(text) => output::status(output::to_stdout(&text), ExitCode::SUCCESS),
        Err(msg) => {
            output::say(format_args!("error: {msg}"));
            ExitCode::from(super::EXIT_INPUT)
        }
    }
}

fn bench_file(a: &BenchArgs) -> Result<PathBuf, String> {
    if let Some(f) = &a.file {
        return Ok(f.clone());
    }
    let path = std::env::temp_dir().join(format!("isocheck-bench-list-append-{}mb.edn", a.mb));
    if !path.exists() {
        output::say(format_args!("generating {} ...", path.display()));
        let params = Params {
            txns: u64::MAX,
            max_bytes: a.mb.saturating_mul(1_000_000),
            processes: 20,
            ..Params::default()
        };
        isocheck::files::write_with(&path, |w| gen::write(w, &params))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(path)
}

/// Best-of-N whole loads of an EDN file (what every check and `stats` do
/// first: read the file, parse, pair), with the peak memory of one load;
/// then best-of-N runs of the reader alone on the text in memory.
fn parse_bench(a: &BenchArgs) -> Result<ParseBench, String> {
    let path = bench_file(a)?;
    let opts = history::LoadOptions {
        format: Some(Format::Edn),
        workload: None,
    };
    let mut load = f64::MAX;
    let mut shape = (0, 0);
    for _ in 0..a.runs.max(1) {
        let start = Instant::now();
        let h = history::load(&path, &opts).map_err(|e| e.to_string())?;
        load = load.min(start.elapsed().as_secs_f64());
        shape = (h.ops.len(), h.txns.len());
    }
    // Measured before the reader's runs, which hold the text besides.
    let peak = peak_rss().unwrap_or(0);
    let text = history::Input::read(&path, Some(Format::Edn))
        .and_then(history::Input::into_text)
        .map_err(|e| e.to_string())?;
    let mut best = f64::MAX;
    for _ in 0..a.runs.max(1) {
        let start = Instant::now();
        let ops = jepsen::read_ops(&text).map_err(|e| e.to_string())?;
        best = best.min(start.elapsed().as_secs_f64());
        drop(ops);
    }
    let bytes = text.len();
    let mb = bytes as f64 / 1e6;
    Ok(ParseBench {
        file: path.display().to_string(),
        bytes,
        ops: shape.0,
        transactions: shape.1,
        parse_seconds_best: best,
        parse_mb_per_second: mb / best,
        load_seconds_best: load,
        load_mb_per_second: mb / load,
        load_txns_per_second: shape.1 as f64 / load,
        peak_rss_bytes: peak,
        peak_rss_over_file: peak as f64 / bytes as f64,
    })
}

#[derive(serde::Serialize)]
struct LoadBench {
    file: String,
    format: &'static str,
    bytes: u64,
    transactions: usize,
    micro_ops: usize,
    load_seconds_best: f64,
    mb_per_second: f64,
    txns_per_second: f64,
    peak_rss_bytes: u64,
}

/// Best-of-N loads of a file in any format. The input is read once (it may
/// be a pipe, which cannot be read again); each run parses and pairs a copy
/// of it, and the load time is the read plus the best run.
fn load_bench(a: &BenchArgs) -> Result<LoadBench, String> {
    let path = bench_file(a)?;
    let opts = a.input.load_options();
    let start = Instant::now();
    let input = history::Input::read(&path, opts.format).map_err(|e| e.to_string())?;
    let read = start.elapsed().as_secs_f64();
    let mut best = f64::MAX;
    let mut shape = (0, 0);
    for _ in 0..a.runs.max(1) {
        let copy = input.clone();
        let start = Instant::now();
        let h = copy.parse(opts.workload).map_err(|e| e.to_string())?;
        best = best.min(start.elapsed().as_secs_f64());
        shape = (h.txns.len(), h.mops_read);
    }
    let best = read + best;
    let bytes = input.size();
    Ok(LoadBench {
        file: path.display().to_string(),
        format: input.format.name(),
        bytes,
        transactions: shape.0,
        micro_ops: shape.1,
        load_seconds_best: best,
        mb_per_second: bytes as f64 / 1e6 / best,
        txns_per_second: shape.0 as f64 / best,
        peak_rss_bytes: peak_rss().unwrap_or(0),
    })
}

fn load_table(b: &LoadBench) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file            {} ({}, {:.2} MB, {} txns, {} micro-ops)",
        b.file,
        b.format,
        b.bytes as f64 / 1e6,
        b.transactions,
        b.micro_ops
    );
    let _ = writeln!(
        s,
        "load (best)     {:.4} s  {:.0} MB/s  {:.0} txns/s",
        b.load_seconds_best, b.mb_per_second, b.txns_per_second
    );
    let _ = writeln!(s, "peak RSS        {:.1} MB", b.peak_rss_bytes as f64 / 1e6);
    s
}

/// A result as JSON, or as the human table `table` writes.
fn emit<T: serde::Serialize>(
    b: &T,
    format: super::OutputFormat,
    table: fn(&T) -> String,
) -> String {
    match format {
        super::OutputFormat::Json => super::check::json_line(b),
        super::OutputFormat::Human => table(b),
    }
}

/// Set in the environment of a timed `isocheck check`, which then reports
/// its peak memory on stderr (a child's peak is not visible to its parent
/// through the standard library).
pub(crate) const PEAK_RSS_ENV: &str = "ISOCHECK_REPORT_PEAK_RSS";
const PEAK_RSS_LINE: &str = "isocheck: peak-rss-bytes ";

/// Reports this process's peak memory when [`PEAK_RSS_ENV`] asks for it.
pub(crate) fn report_peak_rss() {
    if std::env::var_os(PEAK_RSS_ENV).is_some() {
        output::say(format_args!("{PEAK_RSS_LINE}{}", peak_rss().unwrap_or(0)));
    }
}

#[derive(serde::Serialize)]
struct CheckRun {
    model: String,
    exit_status: i32,
    seconds_best: f64,
    txns_per_second: f64,
    mb_per_second: f64,
    peak_rss_bytes: u64,
}

#[derive(serde::Serialize)]
struct CheckBench {
    file: String,
    bytes: u64,
    transactions: usize,
    generated: Option<GenBench>,
    runs: Vec<CheckRun>,
}

#[derive(serde::Serialize)]
struct GenBench {
    arguments: String,
    seconds: f64,
    mb_per_second: f64,
    txns_per_second: f64,
    peak_rss_bytes: u64,
}

/// Generates the history `--generate` describes, timed.
fn generate(args: &str) -> Result<(PathBuf, GenBench, u64), String> {
    use clap::{CommandFactory, FromArgMatches};
    use std::hash::{Hash, Hasher};
    let matches = GenOnly::command()
        .try_get_matches_from(args.split_whitespace())
        .map_err(|e| format!("--generate: {e}"))?;
    let gen_args = GenOnly::from_arg_matches(&matches)
        .map_err(|e| format!("--generate: {e}"))?
        .args;
    if let Some(msg) = super::inapplicable(&gen_args, &super::given(Some(&matches))) {
        return Err(format!("--generate: {msg}"));
    }
    let kind = gen_args.workload.kind().ok_or("--generate: lwt histories are not transactional; use `isocheck gen cas-register` and `bench check --file`")?;
    let params = gen_args.params(kind);
    params.validate().map_err(|e| format!("--generate: {e}"))?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    args.hash(&mut hasher);
    let path = gen_args.output.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("isocheck-bench-gen-{:016x}.edn", hasher.finish()))
    });
    let start = Instant::now();
    let summary = isocheck::files::write_with(&path, |w| gen::write(w, &params))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    let report = GenBench {
        arguments: args.to_string(),
        seconds,
        mb_per_second: summary.bytes as f64 / 1e6 / seconds,
        txns_per_second: summary.transactions as f64 / seconds,
        peak_rss_bytes: peak_rss().unwrap_or(0),
    };
    Ok((path, report, summary.transactions))
}

/// Best-of-N whole `isocheck check` processes per model.
fn check_bench(a: &BenchArgs) -> Result<CheckBench, String> {
    super::check::no_empty_name(
        &a.models,
        "--models",
        "`--models serializable,snapshot-isolation`",
    )?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let (path, generated, txns) = match &a.generate {
        Some(args) => {
            let (path, report, txns) = generate(args)?;
            (path, Some(report), txns as usize)
        }
        None => {
            let path = bench_file(a)?;
            // Each timed process reads the file again: a pipe would be empty
            // (or, a FIFO, wait for ever) from the second on.
            if !std::fs::metadata(&path).is_ok_and(|m| m.is_file() || m.is_dir()) {
                return Err(format!(
                    "bench check runs isocheck check on {} several times: it needs a file or directory",
                    path.display()
                ));
            }
            let h = history::load(&path, &a.input.load_options()).map_err(|e| e.to_string())?;
            let txns = h.txns.len();
            (path, None, txns)
        }
    };
    let bytes = history::input_size(&path);
    let mut runs = Vec::new();
    for model in &a.models {
        let mut best = f64::MAX;
        let mut peak = 0;
        let mut status = 0;
        for _ in 0..a.runs.max(1) {
            let start = Instant::now();
            let out = std::process::Command::new(&exe)
                .arg("check")
                .arg(&path)
                .args(["-m", model, "--format", "edn"])
                .env(PEAK_RSS_ENV, "1")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .output()
                .map_err(|e| e.to_string())?;
            best = best.min(start.elapsed().as_secs_f64());
            status = out.status.code().unwrap_or(-1);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let reported = stderr
                .lines()
                .find_map(|l| l.strip_prefix(PEAK_RSS_LINE)?.parse::<u64>().ok());
            peak = peak.max(reported.ok_or_else(|| format!("the check failed: {stderr}"))?);
        }
        runs.push(CheckRun {
            model: model.clone(),
            exit_status: status,
            seconds_best: best,
            txns_per_second: txns as f64 / best,
            mb_per_second: bytes as f64 / 1e6 / best,
            peak_rss_bytes: peak,
        });
    }
    Ok(CheckBench {
        file: path.display().to_string(),
        bytes,
        transactions: txns,
        generated,
        runs,
    })
}

fn check_table(b: &CheckBench) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file            {} ({:.1} MB, {} txns)",
        b.file,
        b.bytes as f64 / 1e6,
        b.transactions
    );
    if let Some(g) = &b.generated {
        let _ = writeln!(
            s,
            "generated       {:.3} s  {:.0} MB/s  {:.0} txns/s  peak RSS {:.1} MB",
            g.seconds,
            g.mb_per_second,
            g.txns_per_second,
            g.peak_rss_bytes as f64 / 1e6
        );
    }
    for r in &b.runs {
        let _ = writeln!(
            s,
            "{:<34} exit {}  {:.3} s  {:.0} txns/s  {:.0} MB/s  peak RSS {:.1} MB",
            r.model,
            r.exit_status,
            r.seconds_best,
            r.txns_per_second,
            r.mb_per_second,
            r.peak_rss_bytes as f64 / 1e6
        );
    }
    s
}

/// Peak resident set size of this process (Linux `VmHWM`).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn parse_table(b: &ParseBench) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file                        {} ({:.1} MB, {} ops, {} txns)",
        b.file,
        b.bytes as f64 / 1e6,
        b.ops,
        b.transactions
    );
    let _ = writeln!(
        s,
        "parse (best)                {:.3} s  {:.0} MB/s",
        b.parse_seconds_best, b.parse_mb_per_second
    );
    let _ = writeln!(
        s,
        "read + parse + pair (best)  {:.3} s  {:.0} MB/s  {:.0} txns/s",
        b.load_seconds_best, b.load_mb_per_second, b.load_txns_per_second
    );
    let _ = writeln!(
        s,
        "peak RSS (one load)         {:.1} MB  ({:.2}x the file)",
        b.peak_rss_bytes as f64 / 1e6,
        b.peak_rss_over_file
    );
    s
}
