//! The text of a history file, as miette sees it.
//!
//! miette's own `SourceCode` for strings scans from byte 0 to find a span's
//! line, which costs hundreds of milliseconds per diagnostic on a 100 MB
//! history. [`SourceFile`] keeps an index of line starts and of character
//! counts (built on first use), and hands miette only the few lines around a
//! span; lines too long to scan for each label (a history on one line) are
//! read from the index alone, so every lookup is logarithmic in the file.

use super::span::Span;
use super::text::Text;
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::{Arc, OnceLock};

/// A named source text with a lazily built line index.
#[derive(Clone)]
pub struct SourceFile {
    name: Arc<str>,
    // A `Text` behind the `Arc`, not an `Arc<str>`: turning the file's
    // `String` into an `Arc<str>` copies it (500 ms and the file's size
    // again in peak memory on a 500 MB history), and a large file's text
    // is its mapping.
    text: Arc<Text>,
    index: Arc<OnceLock<Index>>,
}

/// Where the lines start, and how many characters precede every
/// [`CHAR_BLOCK`]th byte (empty for ASCII text, where a character is a
/// byte): a line or column lookup costs a binary search and at most one
/// block's scan, however long the line (a history on one line of 50 MB
/// has hundreds of thousands of spans to place on it).
#[derive(Default)]
struct Index {
    line_starts: Vec<usize>,
    chars_at_block: Vec<usize>,
}

/// Bytes between two character counts of the index.
const CHAR_BLOCK: usize = 4096;

/// Whole lines longer than this are read for miette without its scan
/// (which walks every byte of them, for each label).
const SCANNED_WINDOW: usize = 64 << 10;

impl Index {
    fn of(text: &str) -> Index {
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 64 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        let chars_at_block = match text.is_ascii() {
            true => Vec::new(),
            false => {
                let mut total = 0;
                let mut marks = vec![0];
                for block in bytes.chunks(CHAR_BLOCK) {
                    crate::limits::tick();
                    total += chars_in(block);
                    marks.push(total);
                }
                marks
            }
        };
        Index {
            line_starts,
            chars_at_block,
        }
    }
}

/// Characters starting in `bytes` (of UTF-8 text): the bytes that are not
/// continuation bytes, so that counts of adjacent ranges add up whatever
/// the boundaries.
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SourceFile({}, {} bytes)", self.name, self.text.len())
    }
}

impl SourceFile {
    /// A file's name and text.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Text>) -> Self {
        SourceFile {
            name: name.into(),
            text: Arc::new(text.into()),
            index: Arc::default(),
        }
    }

    /// The file's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start()..span.end()).unwrap_or("")
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::of(&self.text))
    }

    fn line_starts(&self) -> &[usize] {
        &self.index().line_starts
    }

    /// Zero-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let starts = self.line_starts();
        starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// One-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.line_of(offset) + 1
    }

    /// One-based `(line, column)` of a byte offset, the column counted in characters.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_of(offset);
        let start = self.line_starts().get(line).copied().unwrap_or(0);
        let offset = offset.min(self.text.len());
        let col = self.chars_before(offset) - self.chars_before(start);
        (line + 1, col + 1)
    }

    /// Characters before byte `offset` (at most the text's length).
    fn chars_before(&self, offset: usize) -> usize {
        let marks = &self.index().chars_at_block;
        let block = offset / CHAR_BLOCK;
        match marks.get(block) {
            None => offset,
            Some(&before) => {
                let from = block * CHAR_BLOCK;
                before + chars_in(&self.text.as_bytes()[from..offset])
            }
        }
    }

    /// Byte range of the whole lines from `first` to `last` (zero-based, inclusive).
    fn lines_range(&self, first: usize, last: usize) -> (usize, usize) {
        let starts = self.line_starts();
        let end = starts.get(last + 1).copied().unwrap_or(self.text.len());
        (starts[first], end)
    }

    /// What miette's own scan reads with context lines either side, for
    /// the whole lines `first..=last`, taken from the index instead: the
    /// lines as they are (only `\n` breaks a line here, where miette also
    /// breaks at a lone `\r`).
    fn indexed_span(&self, first: usize, last: usize) -> MietteSpanContents<'_> {
        let (from, to) = self.lines_range(first, last);
        let breaks = last - first + usize::from(self.line_starts().len() > last + 1);
        MietteSpanContents::new_named(
            self.name.to_string(),
            &self.text.as_bytes()[from..to],
            SourceSpan::new(from.into(), to - from),
            first,
            0,
            breaks,
        )
    }
}

impl SourceCode for SourceFile {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let (start, len) = (span.offset(), span.len());
        if start + len > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = self.line_of(start).saturating_sub(before);
        let last_of_span = self.line_of((start + len).saturating_sub(1).max(start));
        let last = (last_of_span + after).min(self.line_starts().len() - 1);
        let (w_start, w_end) = self.lines_range(first, last);
        // Without context miette's contents start or end inside a line:
        // left to its scan (the excerpt always asks for context).
        if w_end - w_start > SCANNED_WINDOW && before > 0 && after > 0 {
            return Ok(Box::new(self.indexed_span(first, last)));
        }
        let window = &self.text.as_bytes()[w_start..w_end];
        let local = SourceSpan::new((start - w_start).into(), len);
        let inner = window.read_span(&local, before, after)?;
        let data: &'a [u8] = &self.text.as_bytes()[w_start..w_end];
        let (d_off, d_len) = (inner.span().offset(), inner.span().len());
        let snippet = &data[d_off..d_off + d_len];
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            snippet,
            SourceSpan::new((w_start + d_off).into(), d_len),
            first + inner.line(),
            inner.column(),
            // The lines of the snippet, not of the file: miette merges two
            // labels' snippets when one's `line() + line_count()` reaches the
            // other, which with the file's count prints everything between.
            snippet.iter().filter(|&&b| b == b'\n').count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_agree_with_miettes_full_scan() {
        let text: String = (0..200).map(|i| format!("line {i} {{:a {i}}}\n")).collect();
        let src = SourceFile::new("t.edn", text.clone());
        for &(off, len) in &[(0, 4), (5, 3), (700, 10), (text.len() - 5, 4), (100, 0)] {
            for ctx in 0..3 {
                let span = SourceSpan::new(off.into(), len);
                let ours = src.read_span(&span, ctx, ctx).unwrap();
                let theirs = text.as_str().read_span(&span, ctx, ctx).unwrap();
                assert_eq!(ours.data(), theirs.data(), "data at {off} ctx {ctx}");
                assert_eq!(ours.span(), theirs.span());
                assert_eq!(
                    (ours.line(), ours.column()),
                    (theirs.line(), theirs.column())
                );
            }
        }
    }

    /// Long windows are read from the index: the same contents as
    /// miette's scan, for text with `\n` line breaks.
    #[test]
    fn indexed_windows_agree_with_miettes_full_scan() {
        let text: String = (0..50)
            .map(|i| format!("l{i} {{:a {i}}}\n"))
            .collect::<String>()
            + "end";
        let src = SourceFile::new("t.edn", text.clone());
        for off in 0..text.len() {
            for len in [0, 1, 3, 12, 40] {
                // miette reads one more line after a span ending in a line
                // break; the window this file reads stops at the break.
                if off + len > text.len() || text[..off + len].ends_with('\n') {
                    continue;
                }
                for ctx in 1..3 {
                    let span = SourceSpan::new(off.into(), len);
                    let theirs = text.as_str().read_span(&span, ctx, ctx).unwrap();
                    let first = src.line_of(off).saturating_sub(ctx);
                    let last = src.line_of((off + len).saturating_sub(1).max(off)) + ctx;
                    let last = last.min(src.line_starts().len() - 1);
                    let ours = src.indexed_span(first, last);
                    let at = format!("{off}+{len} ctx {ctx}");
                    assert_eq!(ours.data(), theirs.data(), "data at {at}");
                    assert_eq!(ours.span(), theirs.span(), "span at {at}");
                    assert_eq!(ours.line(), theirs.line(), "line at {at}");
                    assert_eq!(ours.column(), theirs.column(), "column at {at}");
                }
            }
        }
    }

    #[test]
    fn columns_count_characters_across_blocks() {
        let line = "é".repeat(CHAR_BLOCK) + "x";
        let src = SourceFile::new("t", format!("ab\n{line}\n"));
        let x = 3 + 2 * CHAR_BLOCK;
        assert_eq!(src.line_col(x), (2, CHAR_BLOCK + 1));
        assert_eq!(src.line_col(x + 1), (2, CHAR_BLOCK + 2));
        assert_eq!(src.line_col(3 + 2 * 100), (2, 101));
        assert_eq!(src.line(x), 2);
    }

    #[test]
    fn line_col_is_one_based() {
        let src = SourceFile::new("t", "ab\ncé\nx");
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(3), (2, 1));
        assert_eq!(src.line_col(6), (2, 3));
        assert_eq!(src.line_col(7), (3, 1));
    }
}
