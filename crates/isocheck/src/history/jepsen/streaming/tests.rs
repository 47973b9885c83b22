//! The streamed ops are the whole-file reader's: on every history of the
//! fixtures and the shared corpus, on generated texts cut into chunks of a
//! few bytes, and on a file that grows while the stream follows it.

use super::*;
use crate::history::formats::tests::skip;
use crate::history::jepsen::read_ops;
use crate::history::jepsen::split::tests::summary;
use crate::limits::{self, Reason};
use proptest::prelude::*;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// A reader that gives its bytes a few at a time, cycling through `sizes`.
struct Chunked {
    bytes: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()].max(1);
        self.next += 1;
        let n = size.min(buf.len()).min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// What the whole-file reader makes of `bytes`, the UTF-8 check included.
fn whole(bytes: &[u8]) -> Result<Ops, HistoryError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => read_ops(text),
        Err(e) => Err(crate::history::not_utf8(e.valid_up_to())),
    }
}

/// The streamed ops of `stream` appended into one history's arenas, or
/// the error it ends with (which must be its last item). Also checks each
/// op's text is its span's.
fn streamed(mut stream: OpStream, bytes: &[u8]) -> Result<Ops, HistoryError> {
    let mut ops = Ops::default();
    while let Some(item) = stream.next() {
        match item {
            Ok(op) => {
                let span = op.op.span;
                assert_eq!(op.text.as_bytes(), &bytes[span.start()..span.end()]);
                assert_eq!(op.text_of(span), Some(&*op.text));
                assert!(op.append_to(&mut ops).is_some());
            }
            Err(e) => {
                assert!(stream.next().is_none(), "an item after the error {e:?}");
                return Err(e);
            }
        }
    }
    ops.values = stream.values().clone();
    Ok(ops)
}

/// Streams `bytes` in chunks of `sizes` bytes.
fn stream_chunked(bytes: &[u8], sizes: Vec<usize>, options: StreamOptions) -> OpStream {
    let reader = Chunked {
        bytes: bytes.to_vec(),
        at: 0,
        sizes,
        next: 0,
    };
    OpStream::new("test", move || Ok(reader), options)
}

/// Asserts that streaming `bytes` in chunks of `sizes` reads what the
/// whole-file reader does.
fn assert_same(bytes: &[u8], sizes: Vec<usize>) -> Result<(), TestCaseError> {
    let stream = stream_chunked(bytes, sizes.clone(), StreamOptions::default());
    let text = String::from_utf8_lossy(bytes);
    prop_assert_eq!(
        summary(streamed(stream, bytes)),
        summary(whole(bytes)),
        "{:?} in chunks of {:?}",
        text,
        sizes
    );
    Ok(())
}

/// The `.edn` files under `dir`, sorted.
fn edn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            edn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "edn") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_and_corpus_history_streams_as_it_reads_whole() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    edn_files(&fixtures, &mut files);
    let from_fixtures = files.len();
    assert!(from_fixtures > 100, "{from_fixtures} fixtures");
    if let Some(corpus) = skip::corpus_dir() {
        edn_files(&corpus, &mut files);
    }
    files.sort();
    let (mut ok, mut errors) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).expect("a readable fixture");
        let expected = summary(whole(&bytes));
        let owned = path.clone();
        let stream = OpStream::new(
            "file",
            move || std::fs::File::open(owned),
            Default::default(),
        );
        let got = summary(streamed(stream, &bytes));
        assert_eq!(got, expected, "{}", path.display());
        match expected.starts_with("error") {
            true => errors += 1,
            false => ok += 1,
        }
    }
    eprintln!(
        "{} files ({from_fixtures} fixtures): {ok} read, {errors} refused alike",
        files.len()
    );
    assert!(errors > 0 && ok > 0);
}

/// Values whose text holds what a reader that counted brackets or split
/// bytes would get wrong: brackets and quotes in strings, characters,
/// comments and discards, and characters of two to four bytes.
const VALUES: [&str; 14] = [
    "1",
    "-3",
    ":k",
    "nil",
    "\"a ] } ) [\"",
    "\"\\\"]\"",
    "\"é日本🦀\"",
    ":ключ",
    "\\]",
    "\\\"",
    "#{1 \"}\"}",
    "[1 ; ]}\n 2]",
    "#_ [\"]\"] 5",
    "3000000000",
];
const TYPES: [&str; 5] = [":invoke", ":ok", ":fail", ":info", ":bad"];
/// What separates two ops.
const BETWEEN: [&str; 6] = ["\n", " ", ",", "\n; ] } é\n", "\n#_ {:a \"]\"}\n", "\r\n"];

fn mop() -> impl Strategy<Value = String> {
    (
        0..4usize,
        0..VALUES.len(),
        prop::collection::vec(0..VALUES.len(), 0..3),
    )
        .prop_map(|(f, k, vs)| {
            let v = |i: usize| VALUES[i];
            let first = vs.first().copied().unwrap_or(0);
            match f {
                0 => format!("[:r {} nil]", v(k)),
                1 => {
                    let items: Vec<&str> = vs.iter().map(|&i| v(i)).collect();
                    format!("[:r {} [{}]]", v(k), items.join(" "))
                }
                2 => format!("[:append {} {}]", v(k), v(first)),
                _ => format!("[:w {} {}]", v(k), v(first)),
            }
        })
}

/// One op map, now and then tagged, with an extra key, without an index,
/// or malformed.
fn op() -> impl Strategy<Value = String> {
    (
        prop::option::of(0..50i64),
        0..TYPES.len(),
        prop::collection::vec(mop(), 0..4),
        0..10u8,
        0..VALUES.len(),
    )
        .prop_map(|(index, ty, mops, shape, extra)| {
            let index = index.map(|i| format!(":index {i}, ")).unwrap_or_default();
            let value = format!("[{}]", mops.join(" "));
            let body = format!(":type {}, :process 1, :f :txn, :value {value}", TYPES[ty]);
            match shape {
                0 => format!("#jepsen.history.Op{{{index}{body}}}"),
                1 => format!("{{{index}{body}, :error {}}}", VALUES[extra]),
                2 => format!("{{{index}:process :nemesis, :value {}}}", VALUES[extra]),
                3 => VALUES[extra].to_string(),
                _ => format!("{{{index}{body}}}"),
            }
        })
}

/// A history: ops one after another or in one vector or list, now and
/// then with a byte-order mark, something after the vector, or cut short.
fn history() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((op(), 0..BETWEEN.len()), 0..8),
        0..4u8,
        any::<bool>(),
        any::<bool>(),
        prop::option::weighted(0.25, any::<prop::sample::Index>()),
    )
        .prop_map(|(ops, framing, bom, after, cut)| {
            let body: String = ops
                .iter()
                .map(|(o, b)| format!("{o}{}", BETWEEN[*b]))
                .collect();
            let mut text = match framing {
                0 => format!("[{body}]"),
                1 => format!("(\n{body})"),
                _ => body,
            };
            if after && framing < 2 {
                text.push_str(" :more");
            }
            let mut bytes = text.into_bytes();
            if bom {
                bytes.splice(0..0, [0xEF, 0xBB, 0xBF]);
            }
            // Anywhere, even inside a character: the end of the input.
            if let Some(cut) = cut {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// In chunks of 1 to 7 bytes, cutting strings, characters and forms
    /// anywhere: the ops, their spans and values, or the error, are the
    /// whole-file reader's.
    #[test]
    fn tiny_chunks_read_what_the_whole_file_reads(
        bytes in history(),
        sizes in prop::collection::vec(1..8usize, 1..6),
    ) {
        assert_same(&bytes, sizes)?;
    }

    /// A byte that is not UTF-8, anywhere: the whole-file reader's error
    /// (the stream gives the ops before it first).
    #[test]
    fn a_byte_not_utf8_is_refused_where_it_is(
        bytes in history(),
        at in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1..8usize, 1..4),
    ) {
        let mut bytes = bytes;
        bytes.insert(at.index(bytes.len() + 1), 0xFF);
        assert_same(&bytes, sizes)?;
    }
}

#[test]
fn multibyte_characters_cut_by_every_chunk_size() {
    let text = "{:type :ok, :process 0, :f :txn, :value [[:r \"日本🦀\" [\"é\" \"]\"]]]}\n";
    let bytes = text.repeat(3).into_bytes();
    for size in 1..8 {
        assert_same(&bytes, vec![size]).unwrap();
    }
}

#[test]
fn a_form_longer_than_the_limit_is_refused_at_its_start() {
    let op = "{:type :ok, :process 0, :f :txn, :value [[:r 1 [1 2 3 4 5 6 7 8 9 10]]]}\n";
    let text = format!("{op}{op}{{:type :ok, :value [{}]}}\n", "1 ".repeat(100));
    let options = StreamOptions {
        max_form: 100,
        ..Default::default()
    };
    let items: Vec<_> = stream_chunked(text.as_bytes(), vec![7], options).collect();
    assert_eq!(items.len(), 3);
    assert!(items[..2].iter().all(Result::is_ok));
    let e = items[2].as_ref().expect_err("refused");
    assert_eq!(e.kind, ErrorKind::FormTooLarge { limit: 100 });
    assert_eq!(e.span(), Some(Span::new(2 * op.len(), 2 * op.len() + 1)));
}

#[test]
fn a_read_error_ends_the_stream_after_the_ops_before_it() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let op = b"{:type :ok}\n";
            match self.0 {
                0 => Err(io::Error::other("the disk is gone")),
                _ => {
                    self.0 -= 1;
                    buf[..op.len()].copy_from_slice(op);
                    Ok(op.len())
                }
            }
        }
    }
    let items: Vec<_> = OpStream::new("h.edn", || Ok(Failing(2)), Default::default()).collect();
    let kinds: Vec<_> = items
        .iter()
        .map(|i| i.as_ref().map(|o| o.op.index))
        .collect();
    assert_eq!(kinds.len(), 3);
    assert_eq!(kinds[..2], [Ok(0), Ok(1)]);
    let e = items[2].as_ref().expect_err("the read error");
    assert_eq!(e.to_string(), "cannot read h.edn: the disk is gone");
}

/// A history in pieces that cut forms (and characters) anywhere.
fn pieces(text: &str, sizes: &[usize]) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut at, mut k) = (0, 0);
    while at < bytes.len() {
        let n = sizes[k % sizes.len()].min(bytes.len() - at);
        out.push(bytes[at..at + n].to_vec());
        (at, k) = (at + n, k + 1);
    }
    out
}

/// A stream following a new empty file: the stream, a writer of the
/// file, the flag that says it is complete, and the file (removed when
/// dropped).
fn following() -> (
    OpStream,
    std::fs::File,
    Arc<AtomicBool>,
    tempfile::NamedTempFile,
) {
    let file = tempfile::NamedTempFile::new().expect("a temporary file");
    let path = file.path().to_path_buf();
    let done = Arc::new(AtomicBool::new(false));
    let options = StreamOptions {
        follow: Some(done.clone()),
        ..Default::default()
    };
    let stream = OpStream::new("followed", move || std::fs::File::open(path), options);
    let writer = file.reopen().expect("the file, to write");
    (stream, writer, done, file)
}

#[test]
fn a_followed_file_gives_every_op_as_it_is_written() {
    let op = |i: usize| {
        format!("{{:index {i}, :type :ok, :process {i}, :f :txn, :value [[:append 1 {i}] [:r \"é\" [1 2]]]}}\n")
    };
    let text: String = (0..40).map(op).collect();
    let (mut stream, mut writer, done, _file) = following();
    let chunks = pieces(&text, &[37, 5, 101, 1, 64]);
    let written = std::thread::spawn(move || {
        for piece in chunks {
            writer.write_all(&piece).expect("written");
            writer.flush().expect("flushed");
            std::thread::sleep(Duration::from_millis(3));
        }
        done.store(true, Ordering::Relaxed);
    });
    let mut ops = Ops::default();
    for item in stream.by_ref() {
        item.expect("an op").append_to(&mut ops).expect("room");
    }
    written.join().expect("the writer");
    ops.values = stream.values().clone();
    assert_eq!(ops.ops.len(), 40);
    assert_eq!(summary(Ok(ops)), summary(read_ops(&text)));
}

#[test]
fn a_half_written_form_waits_for_its_end() {
    let (mut stream, mut writer, done, _file) = following();
    writer
        .write_all(b"{:type :ok}\n{:type :in")
        .expect("written");
    let first = stream.next().map(|o| o.map(|o| o.op.span));
    assert_eq!(first.map(|o| o.ok()), Some(Some(Span::new(0, 11))));
    let finish = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        writer.write_all(b"voke}\n").expect("written");
        writer.flush().expect("flushed");
        std::thread::sleep(Duration::from_millis(200));
        done.store(true, Ordering::Relaxed);
    });
    let second = stream.next().map(|o| o.map(|o| (o.op.span, o.op.ty)));
    assert_eq!(
        second.map(|o| o.ok()),
        Some(Some((
            Span::new(12, 27),
            crate::history::model::OpType::Invoke
        )))
    );
    assert!(stream.next().is_none());
    finish.join().expect("the writer");
}

#[test]
fn a_followed_input_that_stays_silent_stops_at_the_deadline() {
    let (stream, _writer, _done, _file) = following();
    let stop = limits::run(Some(Duration::from_millis(200)), || stream.count());
    let reason = stop.err().map(|s| s.reason);
    assert!(matches!(reason, Some(Reason::Timeout(_))), "{reason:?}");
}
