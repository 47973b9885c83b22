//! The command line: argument parsing and the subcommands.

mod bench;
mod check;
mod recheck;

use crate::history::{self, Format, LoadOptions, Workload};
use crate::report::diagnostic;
use crate::stats::{self, Stats};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Exit status when the input could not be read or checked.
pub const EXIT_INPUT: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "isocheck",
    version,
    about = "Checks database isolation in Jepsen histories"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a history against Elle's consistency models.
    Check(check::CheckArgs),
    /// Summarise histories: sessions, transactions, micro-ops, keys, parse speed.
    Stats(StatsArgs),
    /// Generate a history from a simulated database.
    Gen(GenArgs),
    /// Check every run of a Jepsen store again, beside the verdict it recorded.
    Recheck(recheck::RecheckArgs),
    /// Measure parse throughput, check time and peak memory.
    Bench(bench::BenchArgs),
}

/// Options shared by the commands that read histories.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// Input format (detected from the path and content by default).
    #[arg(long, value_enum)]
    pub input_format: Option<FormatArg>,
    /// Workload (detected from the micro-ops by default).
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadArg>,
}

impl InputArgs {
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            format: self.input_format.map(Into::into),
            workload: self.workload.map(Into::into),
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    Edn,
    Polysi,
    Dbcop,
    Cobra,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Edn => Format::Edn,
            FormatArg::Polysi => Format::Polysi,
            FormatArg::Dbcop => Format::Dbcop,
            FormatArg::Cobra => Format::Cobra,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum WorkloadArg {
    ListAppend,
    RwRegister,
    /// Register ops (:read, :write, :cas), checked for linearizability.
    CasRegister,
}

impl From<WorkloadArg> for Workload {
    fn from(w: WorkloadArg) -> Workload {
        match w {
            WorkloadArg::ListAppend => Workload::ListAppend,
            WorkloadArg::RwRegister => Workload::RwRegister,
            WorkloadArg::CasRegister => Workload::CasRegister,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Human,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// History files (or Cobra log directories).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
}

#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Workload to generate.
    #[arg(value_enum)]
    pub workload: GenWorkload,
    /// Transactions to invoke.
    #[arg(long, default_value_t = 1000)]
    pub txns: u64,
    /// Stop once the output reaches this many megabytes (10^6 bytes).
    #[arg(long)]
    pub max_mb: Option<u64>,
    #[arg(long, default_value_t = 10)]
    pub processes: u64,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file (stdout by default).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// lwt: registers (keys); more than one writes jepsen.independent tuples.
    #[arg(long, default_value_t = 1)]
    pub keys: u64,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum GenWorkload {
    ListAppend,
    /// Lightweight transactions: :write/:read/:cas on linearizable registers
    /// (--txns ops).
    Lwt,
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    // Usage errors exit with EXIT_INPUT rather than clap's 2, which `check`
    // reserves for an unknown verdict.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check(a) => check::run(&a),
        Command::Stats(a) => stats_cmd(&a),
        Command::Gen(a) => gen_cmd(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Recheck(a) => recheck::run(&a),
    }
}

fn stats_cmd(a: &StatsArgs) -> ExitCode {
    let opts = a.input.load_options();
    let mut all = Vec::new();
    let mut failed = false;
    for path in &a.files {
        let start = Instant::now();
        match history::load(path, &opts) {
            Ok(h) => {
                let secs = start.elapsed().as_secs_f64();
                let format = opts
                    .format
                    .or_else(|| history::formats::detect(path).ok())
                    .unwrap_or(Format::Edn);
                all.push(Stats::of(&h, format, input_size(path), secs));
            }
            Err(d) => {
                eprint!("{}", diagnostic::render(&d, diagnostic::stderr_color()));
                failed = true;
            }
        }
    }
    match a.format {
        OutputFormat::Human => all.iter().enumerate().for_each(|(i, s)| {
            let sep = if i > 0 { "\n" } else { "" };
            print!("{sep}{}", stats::render(s));
        }),
        OutputFormat::Json => {
            let json = if all.len() == 1 {
                serde_json::to_string_pretty(&all[0])
            } else {
                serde_json::to_string_pretty(&all)
            };
            println!("{}", json.unwrap_or_default());
        }
    }
    if failed {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

/// Bytes of a file, or of the files of a directory.
pub(crate) fn input_size(path: &std::path::Path) -> u64 {
    match std::fs::read_dir(path) {
        Ok(dir) => dir
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum(),
        Err(_) => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

fn gen_cmd(a: &GenArgs) -> ExitCode {
    if let GenWorkload::Lwt = a.workload {
        return gen_lwt(a);
    }
    let params = crate::gen::list_append::Params {
        seed: a.seed,
        processes: a.processes,
        txns: a.txns,
        max_bytes: a.max_mb.map_or(u64::MAX, |m| m * 1_000_000),
        ..Default::default()
    };
    let result = match &a.output {
        Some(path) => {
            std::fs::File::create(path).and_then(|f| crate::gen::list_append::write(f, &params))
        }
        None => crate::gen::list_append::write(std::io::stdout().lock(), &params),
    };
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the history: {e}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}

fn gen_lwt(a: &GenArgs) -> ExitCode {
    let params = crate::gen::lwt::Params {
        seed: a.seed,
        processes: a.processes,
        keys: a.keys,
        ops: a.txns,
        max_bytes: a.max_mb.map_or(u64::MAX, |m| m * 1_000_000),
        ..Default::default()
    };
    let result = match &a.output {
        Some(path) => std::fs::File::create(path).and_then(|f| crate::gen::lwt::write(f, &params)),
        None => crate::gen::lwt::write(std::io::stdout().lock(), &params),
    };
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the history: {e}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}
