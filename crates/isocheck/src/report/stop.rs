//! The answer of a check that a limit stopped (`--timeout`, `--max-memory`):
//! `:valid? :unknown`, the reason and the stage, for people, as EDN and as
//! JSON. Written through `fmt::Write` with no allocation of its own, so that
//! the allocator can write it when the system runs out of memory.

use crate::limits::{Fit, Reason, Stop};
use std::fmt::{self, Write};

/// How the answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Format {
    /// A report for people, on stderr.
    Human,
    /// Elle-style result map, on stdout.
    Edn,
    /// Elle's result map as JSON.
    Json,
}

impl Format {
    /// The format a byte stands for (how the binary's out-of-memory hook stores
    /// it); EDN for any other byte.
    pub fn from_u8(n: u8) -> Format {
        match n {
            1 => Format::Edn,
            2 => Format::Json,
            _ => Format::Human,
        }
    }

    /// The file descriptor the answer goes to.
    pub fn fd(self) -> i32 {
        match self {
            Format::Human => 2,
            Format::Edn | Format::Json => 1,
        }
    }
}

/// Writes the answer, ending with a newline.
pub fn write(out: &mut impl Write, stop: &Stop, format: Format) -> fmt::Result {
    match format {
        Format::Human => human(out, stop),
        Format::Edn => fields(out, stop, Syntax::EDN),
        Format::Json => fields(out, stop, Syntax::JSON),
    }
}

/// The answer as a string.
pub fn render(stop: &Stop, format: Format) -> String {
    let mut out = String::new();
    let _ = write(&mut out, stop, format);
    out
}

fn human(out: &mut impl Write, stop: &Stop) -> fmt::Result {
    let doing = stop.stage.doing();
    match stop.reason {
        Reason::Timeout(t) => {
            writeln!(out, "unknown: timeout")?;
            writeln!(
                out,
                "  the --timeout of {} s passed while {doing} (stage {}), before any verdict",
                t.as_secs_f64(),
                stop.stage.name()
            )?;
            writeln!(out, "  help: allow more time with --timeout")
        }
        Reason::MemoryLimit {
            budget,
            used,
            refused,
        } => {
            writeln!(out, "unknown: memory-limit")?;
            let stage = stop.stage.name();
            match refused {
                false => writeln!(
                    out,
                    "  {used} bytes in use went over the memory budget of {budget} bytes while \
                     {doing} (stage {stage}), after {} ops",
                    stop.ops
                )?,
                true => writeln!(
                    out,
                    "  the system refused memory while {doing} (stage {stage}), after {} ops: \
                     {budget} bytes in use, {used} asked for",
                    stop.ops
                )?,
            }
            match stop.fit() {
                Some(Fit::InputBytes(n)) => {
                    writeln!(out, "  an input of at most about {n} bytes would fit")?
                }
                Some(Fit::Ops(n)) => {
                    writeln!(out, "  a history of at most about {n} ops would fit")?
                }
                None => {}
            }
            writeln!(
                out,
                "  help: raise --max-memory (default: the memory available), or check a \
                 shorter history"
            )
        }
    }
}

/// What differs between the EDN and the JSON map.
struct Syntax {
    open: &'static str,
    sep: &'static str,
    close: &'static str,
    key: fn(&mut dyn Write, &str) -> fmt::Result,
    keyword: fn(&mut dyn Write, &str) -> fmt::Result,
}

impl Syntax {
    const EDN: Syntax = Syntax {
        open: "{",
        sep: ",\n ",
        close: "}\n",
        key: |out, k| write!(out, ":{k} "),
        keyword: |out, k| write!(out, ":{k}"),
    };
    const JSON: Syntax = Syntax {
        open: "{\n  ",
        sep: ",\n  ",
        close: "\n}\n",
        key: |out, k| write!(out, "\"{k}\": "),
        keyword: |out, k| write!(out, "\"{k}\""),
    };
}

/// `:valid? :unknown`, `:reason`, `:stage`, then the reason's numbers.
fn fields(out: &mut impl Write, stop: &Stop, s: Syntax) -> fmt::Result {
    let out: &mut dyn Write = out;
    out.write_str(s.open)?;
    (s.key)(out, "valid?")?;
    (s.keyword)(out, "unknown")?;
    out.write_str(s.sep)?;
    (s.key)(out, "reason")?;
    (s.keyword)(out, stop.reason.name())?;
    out.write_str(s.sep)?;
    (s.key)(out, "stage")?;
    (s.keyword)(out, stop.stage.name())?;
    let mut number = |name: &str, n: &dyn fmt::Display| -> fmt::Result {
        out.write_str(s.sep)?;
        (s.key)(out, name)?;
        write!(out, "{n}")
    };
    match stop.reason {
        Reason::Timeout(t) => number("timeout-seconds", &t.as_secs_f64())?,
        Reason::MemoryLimit {
            budget,
            used,
            refused,
        } => {
            let (have, need) = match refused {
                false => ("memory-budget", "memory-used"),
                true => ("memory-given", "memory-asked"),
            };
            number(have, &budget)?;
            number(need, &used)?;
            number("ops", &stop.ops)?;
            number("input-bytes", &stop.input_bytes)?;
            match stop.fit() {
                Some(Fit::InputBytes(n)) => number("input-bytes-that-fit", &n)?,
                Some(Fit::Ops(n)) => number("ops-that-fit", &n)?,
                None => {}
            }
        }
    }
    out.write_str(s.close)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Stage;
    use std::time::Duration;

    fn memory_stop() -> Stop {
        Stop {
            reason: Reason::MemoryLimit {
                budget: 1000,
                used: 2000,
                refused: false,
            },
            stage: Stage::Inference,
            ops: 10,
            input_bytes: 300,
        }
    }

    #[test]
    fn edn_names_reason_stage_and_what_fits() {
        assert_eq!(
            render(&memory_stop(), Format::Edn),
            "{:valid? :unknown,\n :reason :memory-limit,\n :stage :inference,\n \
             :memory-budget 1000,\n :memory-used 2000,\n :ops 10,\n :input-bytes 300,\n \
             :ops-that-fit 5}\n"
        );
    }

    #[test]
    fn json_parses_with_the_same_fields() {
        let stop = Stop {
            reason: Reason::Timeout(Duration::from_millis(1500)),
            stage: Stage::Reading,
            ops: 0,
            input_bytes: 0,
        };
        let v: serde_json::Value = serde_json::from_str(&render(&stop, Format::Json)).unwrap();
        assert_eq!(v["valid?"], "unknown");
        assert_eq!(v["reason"], "timeout");
        assert_eq!(v["stage"], "reading");
        assert_eq!(v["timeout-seconds"], 1.5);
        let v: serde_json::Value =
            serde_json::from_str(&render(&memory_stop(), Format::Json)).unwrap();
        assert_eq!(v["ops-that-fit"], 5);
    }

    #[test]
    fn people_read_what_fits() {
        let text = render(&memory_stop(), Format::Human);
        assert!(text.starts_with("unknown: memory-limit\n"), "{text}");
        assert!(
            text.contains("a history of at most about 5 ops would fit"),
            "{text}"
        );
    }
}
