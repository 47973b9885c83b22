//! The input a stream read, held (up to a size) so that, when the window
//! retired nothing, the final verdict can be the offline check's on the
//! same bytes: its anomaly types, explanations and spans, not only what
//! the stream names as it goes.

use std::io::{self, Read};
use std::sync::{Arc, Mutex, PoisonError};

/// The bytes read so far, or nothing once released or past the cap. Shared
/// between the reader (on the stream's reading thread) and the check.
#[derive(Clone, Debug)]
pub struct Held {
    bytes: Arc<Mutex<Option<Vec<u8>>>>,
    cap: usize,
}

impl Held {
    /// Holds at most `cap` bytes: an input longer than that is not held.
    pub fn new(cap: usize) -> Held {
        Held {
            bytes: Arc::new(Mutex::new(Some(Vec::new()))),
            cap,
        }
    }

    /// `inner`, copying what it reads into the holding while it holds.
    pub fn reader<R: Read>(&self, inner: R) -> HeldReader<R> {
        HeldReader {
            inner,
            held: self.clone(),
        }
    }

    /// Holds nothing more (the window retired something: the offline
    /// verdict is no longer the one wanted), and frees what it held.
    pub fn release(&self) {
        *self.lock() = None;
    }

    /// Everything read, unless released or past the cap.
    pub fn take(&self) -> Option<Vec<u8>> {
        self.lock().take()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<u8>>> {
        // A panic on the reading thread leaves nothing half-written: a
        // copy either happened or did not.
        self.bytes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn keep(&self, bytes: &[u8]) {
        let mut held = self.lock();
        if let Some(all) = held.as_mut() {
            if all.len().saturating_add(bytes.len()) > self.cap {
                *held = None;
            } else {
                all.extend_from_slice(bytes);
            }
        }
    }
}

/// A reader that hands a copy of what it reads to a [`Held`].
#[derive(Debug)]
pub struct HeldReader<R> {
    inner: R,
    held: Held,
}

impl<R: Read> Read for HeldReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.held.keep(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_through(held: &Held, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut r = held.reader(input);
        r.read_to_end(&mut out).expect("reading a slice");
        out
    }

    #[test]
    fn holds_what_was_read_up_to_the_cap() {
        let held = Held::new(10);
        assert_eq!(read_through(&held, b"0123456789"), b"0123456789");
        assert_eq!(held.take().as_deref(), Some(&b"0123456789"[..]));
        let over = Held::new(9);
        assert_eq!(read_through(&over, b"0123456789"), b"0123456789");
        assert_eq!(over.take(), None);
    }

    #[test]
    fn released_holds_nothing_more() {
        let held = Held::new(100);
        let mut r = held.reader(&b"abc"[..]);
        let mut one = [0u8; 1];
        r.read_exact(&mut one).expect("one byte");
        held.release();
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).expect("the rest");
        assert_eq!(rest, b"bc");
        assert_eq!(held.take(), None);
    }
}
