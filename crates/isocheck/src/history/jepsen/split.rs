//! Reading a large EDN history on every core: the text is cut into pieces
//! at line starts that open an op map (`{` after a newline), each piece is
//! read by a thread of its own into arenas of its own, and the pieces are
//! appended in file order, their values renumbered into the first piece's
//! table.
//!
//! A cut is trusted only once the piece before it is read to its end
//! without error: a cut inside a string, a collection, a tag or a discard
//! leaves that piece's last form open, an error. So when every piece reads,
//! every cut falls between two top-level forms, and the pieces hold exactly
//! the ops one thread reads there, with the same spans (every piece reads a
//! prefix of the text, from its start). When any piece fails, the whole
//! text is read again on one thread, for the error that reader gives.
//!
//! Limits: the check's own thread reads the first piece and polls them; a
//! helper thread stops at its next op when the first piece fails or a limit
//! unwinds out of it. Memory is counted for every thread alike.

use super::{read_sequential, OpReader, Ops};
use crate::history::edn::lex::{without_bom, Reader};
use crate::history::error::HistoryError;
use crate::history::model::{MicroOp, MopValue, OpValue, Process};
use std::sync::atomic::{AtomicBool, Ordering};

/// Below this many bytes a history is read on one thread: a thread costs
/// more than it saves (a few milliseconds).
pub(in crate::history) const PARALLEL_FROM: usize = 4 << 20;

/// The stack of a helper thread: the main thread's, since the reader
/// recurses once per level of nesting.
const STACK_BYTES: usize = 8 << 20;

/// Reads every op of `text` in up to `pieces` pieces at once.
pub(super) fn read_ops(text: &str, pieces: usize) -> Result<Ops, HistoryError> {
    read_from(text, &piece_starts(text, pieces))
}

/// Reads every op of `text` in pieces starting at `starts` (0 first, then
/// ascending), or on one thread when there is one piece or any fails.
fn read_from(text: &str, starts: &[usize]) -> Result<Ops, HistoryError> {
    if starts.len() < 2 {
        return read_sequential(text);
    }
    match read_pieces(text, starts) {
        Some(ops) => Ok(ops),
        None => read_sequential(text),
    }
}

/// Where the pieces start: 0, then for each further piece the first line
/// opening an op map from its share of the text on. Only one piece for a
/// history framed as a single vector or list of ops.
pub(in crate::history) fn piece_starts(text: &str, pieces: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    if pieces < 2 || !one_op_per_form(text) {
        return starts;
    }
    let finder = memchr::memmem::Finder::new(b"\n{");
    let share = bytes.len() / pieces;
    for k in 1..pieces {
        let from = share.saturating_mul(k);
        let Some(at) = bytes.get(from..).and_then(|b| finder.find(b)) else {
            break;
        };
        // Past the newline: the `{`.
        let start = from.saturating_add(at).saturating_add(1);
        if starts.last().is_some_and(|&s| s < start) {
            starts.push(start);
        }
    }
    starts
}

/// Whether the history is one op map per top-level form, not a single
/// vector or list of them.
fn one_op_per_form(text: &str) -> bool {
    let r = Reader::new(text);
    match r.skip_ws(without_bom(r.full), 0) {
        Ok((rest, ())) => !matches!(rest.first(), Some(b'[' | b'(')),
        Err(_) => false,
    }
}

/// The ops of one piece, and which of them had no `:index`.
struct Piece {
    ops: Ops,
    unindexed: Vec<usize>,
}

/// Sets the flag when dropped: a limit unwinding out of the first piece
/// stops the helpers.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Reads the pieces starting at `starts` (at least two), the first on
/// this thread; `None` when any piece fails.
fn read_pieces(text: &str, starts: &[usize]) -> Option<Ops> {
    let ends: Vec<usize> = starts[1..].iter().copied().chain([text.len()]).collect();
    let stop = AtomicBool::new(false);
    let stop = &stop;
    let pieces: Vec<Option<Piece>> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..starts.len())
            .map(|k| {
                let (start, end) = (starts[k], ends[k]);
                std::thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(s, move || read_piece(text, start, end, Some(stop)))
            })
            .collect();
        let _stop_on_unwind = StopOnDrop(stop);
        let first = read_piece(text, 0, ends[0], None);
        if first.is_none() {
            stop.store(true, Ordering::Relaxed);
        }
        let rest = helpers
            .into_iter()
            .map(|h| h.ok().and_then(|h| h.join().ok()).flatten());
        std::iter::once(first).chain(rest).collect()
    });
    let mut pieces = pieces.into_iter();
    let mut ops = pieces.next()??.ops;
    for piece in pieces {
        append(&mut ops, piece?)?;
    }
    Some(ops)
}

/// The ops of `text[start..end]`, read as a prefix of `text` (so that
/// spans are offsets in the file); `None` on an error or when stopped.
fn read_piece(text: &str, start: usize, end: usize, stop: Option<&AtomicBool>) -> Option<Piece> {
    let prefix = text.get(..end)?;
    let mut r = OpReader::new(prefix, stop, end.saturating_sub(start));
    let read = match start {
        0 => r.top(),
        _ => {
            let full = r.r.full;
            r.forms(full.get(start..)?)
        }
    };
    let stopped = stop.is_some_and(|s| s.load(Ordering::Relaxed));
    (read.is_ok() && !stopped).then_some(Piece {
        ops: r.out,
        unindexed: r.unindexed,
    })
}

/// Appends a piece's ops to those before it: arena positions move past
/// what `into` holds, values are renumbered into its table, and ops with
/// no `:index` get their position in the file. `None` when the arenas
/// would outgrow their `u32` positions.
fn append(into: &mut Ops, piece: Piece) -> Option<()> {
    let Piece { ops: p, unindexed } = piece;
    let position = |len: usize, more: usize| {
        let total = len.checked_add(more)?;
        u32::try_from(total).ok()?;
        u32::try_from(len).ok()
    };
    let op_base = into.ops.len();
    let mops_base = position(into.mops.len(), p.mops.len())?;
    let elems_base = position(into.elems.len(), p.elems.len())?;
    let extras_base = position(into.extras.len(), p.extras.len())?;
    let vals = into.values.absorb(&p.values);
    into.ops.reserve(p.ops.len());
    into.ops.extend(p.ops.into_iter().map(|mut op| {
        op.f = vals.apply(op.f);
        if let Process::Other(v) = op.process {
            op.process = Process::Other(vals.apply(v));
        }
        if let OpValue::Txn { start, len } = op.value {
            op.value = OpValue::Txn {
                start: start + mops_base,
                len,
            };
        }
        op.extras_start += extras_base;
        op
    }));
    for k in unindexed {
        let at = op_base.checked_add(k)?;
        into.ops.get_mut(at)?.index = i64::try_from(at).ok()?;
    }
    into.mops.reserve(p.mops.len());
    into.mops.extend(p.mops.into_iter().map(|m| {
        let value = match m.value() {
            MopValue::Val(v) => MopValue::Val(vals.apply(v)),
            MopValue::List { start, len } => MopValue::List {
                start: start + elems_base,
                len,
            },
        };
        MicroOp::new(m.kind, vals.apply(m.key), value, m.span)
    }));
    into.elems
        .extend(p.elems.into_iter().map(|v| vals.apply(v)));
    into.extras.extend(p.extras);
    Some(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// All a reading yields, as text: the arenas, the values' numbers and
    /// texts, or the error.
    pub(in crate::history::jepsen) fn summary(read: Result<Ops, HistoryError>) -> String {
        match read {
            Ok(o) => format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?} {}",
                o.ops,
                o.mops,
                o.elems,
                o.extras,
                o.values.canonical_texts(),
                o.values.overflowed()
            ),
            Err(e) => format!("error {e:?}"),
        }
    }

    /// Keys and values: inline integers, interned ones, and strings that
    /// hold what looks like a line opening an op map.
    const VALUES: [&str; 8] = [
        "1",
        "7",
        "-3",
        ":k",
        "3000000000",
        "\"a\n{:type :ok}\"",
        "\"x\"",
        "nil",
    ];
    const TYPES: [&str; 4] = [":invoke", ":ok", ":fail", ":info"];
    /// What separates two ops: line breaks, comments, a discard, spaces,
    /// and a map opening a line inside an op.
    const BETWEEN: [&str; 6] = [
        "\n",
        "\n\n",
        " ",
        "\n; {:type :ok}\n",
        "\n#_\n{:type :ok}\n",
        "\n",
    ];

    fn mop() -> impl Strategy<Value = String> {
        (
            0..4usize,
            0..VALUES.len(),
            proptest::collection::vec(0..VALUES.len(), 0..3),
        )
            .prop_map(|(f, k, vs)| {
                let v = |i: usize| VALUES[i];
                match f {
                    0 => format!("[:r {} nil]", v(k)),
                    1 => {
                        let items: Vec<&str> = vs.iter().map(|&i| v(i)).collect();
                        format!("[:r {} [{}]]", v(k), items.join(" "))
                    }
                    2 => format!("[:append {} {}]", v(k), v(vs.first().copied().unwrap_or(0))),
                    _ => format!("[:w {} {}]", v(k), v(vs.first().copied().unwrap_or(1))),
                }
            })
    }

    /// One op map, now and then spread over lines, with an extra key, or
    /// malformed.
    fn op() -> impl Strategy<Value = String> {
        (
            prop::option::of(0..50i64),
            0..TYPES.len(),
            0..7i64,
            proptest::collection::vec(mop(), 0..4),
            0..8u8,
        )
            .prop_map(|(index, ty, process, mops, shape)| {
                let index = index.map(|i| format!(":index {i}, ")).unwrap_or_default();
                let process = match process {
                    6 => ":nemesis".to_string(),
                    p => p.to_string(),
                };
                let sep = if shape == 1 { "\n" } else { " " };
                let value = match shape {
                    2 => "\n{:a 1}".to_string(),
                    _ => format!("[{}]", mops.join(sep)),
                };
                let extra = if shape == 3 { ", :error \"e\n{\"" } else { "" };
                match shape {
                    7 => format!("{{{index}:process {process}}}"),
                    _ => format!(
                        "{{{index}:type {}, :process {process}, :f :txn, :value {value}{extra}}}",
                        TYPES[ty]
                    ),
                }
            })
    }

    fn history() -> impl Strategy<Value = String> {
        proptest::collection::vec((op(), 0..BETWEEN.len()), 0..10).prop_map(|ops| {
            ops.iter()
                .map(|(o, b)| format!("{o}{}", BETWEEN[*b]))
                .collect()
        })
    }

    fn line_starts(text: &str) -> Vec<usize> {
        memchr::memchr_iter(b'\n', text.as_bytes())
            .map(|i| i + 1)
            .filter(|&i| i < text.len())
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Cut at any line start (a map's, or one inside a string, a
        /// comment, a discarded form or an op), or at several, or for
        /// any number of threads: the ops, their spans and values, or
        /// the error, are those one thread reads.
        #[test]
        fn pieces_read_what_one_thread_reads(
            text in history(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 1..4),
        ) {
            let one = summary(read_sequential(&text));
            let starts = line_starts(&text);
            for &at in &starts {
                prop_assert_eq!(&summary(read_from(&text, &[0, at])), &one, "cut at {}", at);
            }
            if !starts.is_empty() {
                let mut several: Vec<usize> = cuts.iter().map(|c| starts[c.index(starts.len())]).collect();
                several.sort_unstable();
                several.dedup();
                several.insert(0, 0);
                prop_assert_eq!(&summary(read_from(&text, &several)), &one, "cuts at {:?}", several);
            }
            for pieces in 1..5 {
                prop_assert_eq!(&summary(read_ops(&text, pieces)), &one, "{} pieces", pieces);
            }
        }
    }

    /// A history of one op map a line is cut at line starts opening a map
    /// (here one inside a string, which the read then refuses), one a
    /// piece; a vector of ops is read whole.
    #[test]
    fn pieces_start_at_maps_opening_a_line() {
        let text = "{:type :ok}\n{:type :ok}\n \"\n{\"\n{:type :ok}\n";
        assert_eq!(piece_starts(text, 2), vec![0, 27]);
        assert_eq!(piece_starts(text, 3), vec![0, 27, 30]);
        assert_eq!(piece_starts(text, 4), vec![0, 12, 27]);
        assert_eq!(piece_starts(text, 1), vec![0]);
        assert_eq!(piece_starts(&format!("[{text}]"), 2), vec![0]);
        let unindexed = "{:type :ok}\n{:type :ok}\n{:type :ok}\n";
        let ops = read_pieces(unindexed, &[0, 12, 24]).map(|o| o.ops);
        let indexes: Vec<i64> = ops.iter().flatten().map(|o| o.index).collect();
        assert_eq!(indexes, vec![0, 1, 2]);
    }

    /// Pieces that number their values apart (the second meets `:k` and
    /// `-3` in the other order, and values the first never saw) are read
    /// in pieces, not on one thread, and come out as one thread reads them.
    #[test]
    fn values_are_renumbered_into_the_first_piece() {
        let text = concat!(
            "{:type :invoke, :process 0, :f :a, :value [[:append :k -3] [:r \"s\" [-3 :k]]]}\n",
            "{:type :ok, :process :nemesis, :f :b, :value [[:w 5 :x]], :error :e}\n",
            "{:index 9, :type :ok, :process :other, :f :c, :value [[:r -3 [:k :y 4]] [:w :k -3]]}\n",
            "{:type :info, :process 1, :f :a, :value [[:append :z \"s\"]]}\n",
        );
        let one = summary(read_sequential(text));
        for starts in [&[0, 78][..], &[0, 147], &[0, 78, 232]] {
            let pieces = read_pieces(text, starts).map(|o| summary(Ok(o)));
            assert_eq!(pieces.as_ref(), Some(&one), "read in pieces at {starts:?}");
        }
    }
}
