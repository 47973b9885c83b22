//! The text of a history file, as miette sees it.
//!
//! miette's own `SourceCode` for strings scans from byte 0 to find a span's
//! line, which costs hundreds of milliseconds per diagnostic on a 100 MB
//! history. [`SourceFile`] keeps an index of line starts (built on first use)
//! and hands miette only the few lines around a span.

use super::span::Span;
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::{Arc, OnceLock};

/// A named source text with a lazily built line index.
#[derive(Clone)]
pub struct SourceFile {
    name: Arc<str>,
    text: Arc<str>,
    line_starts: Arc<OnceLock<Vec<usize>>>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SourceFile({}, {} bytes)", self.name, self.text.len())
    }
}

impl SourceFile {
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            line_starts: Arc::default(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start()..span.end()).unwrap_or("")
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let bytes = self.text.as_bytes();
            let mut starts = Vec::with_capacity(bytes.len() / 64 + 1);
            starts.push(0);
            starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
            starts
        })
    }

    /// Zero-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let starts = self.line_starts();
        starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// One-based `(line, column)` of a byte offset, the column counted in characters.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_of(offset);
        let start = self.line_starts()[line];
        let offset = offset.min(self.text.len());
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// Byte range of the whole lines from `first` to `last` (zero-based, inclusive).
    fn lines_range(&self, first: usize, last: usize) -> (usize, usize) {
        let starts = self.line_starts();
        let end = starts.get(last + 1).copied().unwrap_or(self.text.len());
        (starts[first], end)
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

    #[test]
    fn line_col_is_one_based() {
        let src = SourceFile::new("t", "ab\ncé\nx");
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(3), (2, 1));
        assert_eq!(src.line_col(6), (2, 3));
        assert_eq!(src.line_col(7), (3, 1));
    }
}
