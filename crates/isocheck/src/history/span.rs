//! Byte spans into a history file.

/// A half-open byte range `[start, end)` into the file a value was read from.
///
/// Packed into eight bytes (a 40-bit start, a 24-bit length) because every op
/// and micro-op carries one: offsets reach 1 TiB; a span longer than 16 MiB
/// (a single giant read) is clipped to its first 16 MiB, which only shortens
/// what a diagnostic underlines.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span(u64);

const LEN_BITS: u32 = 24;
const MAX_LEN: usize = (1 << LEN_BITS) - 1;
const MAX_START: usize = (1 << (64 - LEN_BITS)) - 1;

impl Span {
    /// The bytes `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        let start = start.min(MAX_START);
        let len = end.saturating_sub(start).min(MAX_LEN);
        Span(((start as u64) << LEN_BITS) | len as u64)
    }

    /// The first byte.
    pub const fn start(&self) -> usize {
        (self.0 >> LEN_BITS) as usize
    }

    /// How many bytes.
    pub const fn len(&self) -> usize {
        (self.0 & MAX_LEN as u64) as usize
    }

    /// One past the last byte.
    pub const fn end(&self) -> usize {
        self.start() + self.len()
    }

    /// Whether it covers no byte.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the span may have been clipped: it is as long as a span can
    /// be, so the text it stands for may go on past [`Span::end`].
    pub const fn is_clipped(&self) -> bool {
        self.len() == MAX_LEN
    }

    /// The text of a value this span starts, for a reader that reads one
    /// value from the front of a text and stops where its syntax ends: the
    /// span's own text, or from its start to the end of `text` when the span
    /// was clipped (cut there, the value would end too early, perhaps inside
    /// a character). Empty when the span is not in `text`.
    pub fn text_from<'t>(&self, text: &'t str) -> &'t str {
        self.text_in(text, 0)
    }

    /// [`Span::text_from`] in a text that starts `base` bytes into the
    /// input (one op's text, as a stream holds it).
    pub fn text_in<'t>(&self, text: &'t str, base: usize) -> &'t str {
        let Some(start) = self.start().checked_sub(base) else {
            return "";
        };
        let end = match self.is_clipped() {
            true => Some(text.len()),
            false => self.end().checked_sub(base),
        };
        end.and_then(|end| text.get(start..end)).unwrap_or("")
    }

    /// The same bytes in a text that starts `by` bytes earlier: a span
    /// into a part of a file read alone, placed in the file.
    pub fn shifted(self, by: usize) -> Span {
        let start = self.start().saturating_add(by);
        Span::new(start, start.saturating_add(self.len()))
    }

    /// The smallest span that covers both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start().min(other.start()), self.end().max(other.end()))
    }
}

impl std::fmt::Debug for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.start(), self.end())
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        miette::SourceSpan::new(s.start().into(), s.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_clips() {
        let s = Span::new(5, 9);
        assert_eq!((s.start(), s.end(), s.len()), (5, 9, 4));
        let big = Span::new(1 << 35, (1 << 35) + (1 << 25));
        assert_eq!(big.start(), 1 << 35);
        assert_eq!(big.len(), MAX_LEN);
        assert_eq!(Span::new(3, 1).len(), 0);
        assert_eq!(Span::new(2, 4).to(Span::new(8, 9)), Span::new(2, 9));
    }

    #[test]
    fn a_clipped_span_gives_the_text_to_the_end() {
        let text = "ab[1 2]cd";
        assert_eq!(Span::new(2, 7).text_from(text), "[1 2]");
        assert!(!Span::new(2, 7).is_clipped());
        let long = format!("x{}é]", "a".repeat(MAX_LEN - 1));
        let clipped = Span::new(1, long.len());
        assert!(clipped.is_clipped());
        // Cut at 16 MiB, the span would end inside `é`.
        assert!(long.get(clipped.start()..clipped.end()).is_none());
        assert_eq!(clipped.text_from(&long), &long[1..]);
        assert_eq!(Span::new(20, 30).text_from(text), "");
    }
}
