//! Reading an input whose end is not known in advance (standard input, a
//! FIFO, a character device such as `/dev/zero`): in chunks, polling the
//! limits between them, so that an input that never ends, or never sends a
//! byte, ends with the limit's answer instead of reading forever.
//!
//! A blocking `read` cannot be interrupted by a poll, so a thread of its
//! own opens and reads the input and hands the chunks over; the caller
//! waits for each at most [`WAIT`] before it polls again (the time limit,
//! and the memory the text already holds against the budget). When a limit
//! stops the check, the reader's next hand-over fails and it ends; one
//! still blocked in `read` ends with the process.

use std::io::{self, Read};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// Bytes read at once.
const CHUNK: usize = 1 << 20;
/// How long the caller waits for a chunk before it polls the limits again.
const WAIT: Duration = Duration::from_millis(50);

/// Reads everything `open` gives (called on the reader's thread, since
/// opening a FIFO blocks until a writer opens it too), polling the limits.
pub fn read_all<R: Read>(
    open: impl FnOnce() -> io::Result<R> + Send + 'static,
) -> io::Result<Vec<u8>> {
    // Two chunks in flight at most: the text grows where the budget sees it.
    let (send, receive) = mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
    std::thread::Builder::new()
        .name("isocheck-read".into())
        .spawn(move || {
            // Nobody to tell when the receiver is gone: the check stopped.
            let _ = match open() {
                Ok(reader) => pump(reader, &send),
                Err(e) => send.send(Err(e)).map_err(drop),
            };
        })?;
    let mut bytes = Vec::new();
    loop {
        match receive.recv_timeout(WAIT) {
            Ok(chunk) => bytes.extend_from_slice(&chunk?),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(bytes),
        }
        crate::limits::reading(bytes.len() as u64);
    }
}

/// Sends the chunks of `reader` until its end, an error, or the receiver
/// is gone.
fn pump(mut reader: impl Read, send: &mpsc::SyncSender<io::Result<Vec<u8>>>) -> Result<(), ()> {
    loop {
        let mut chunk = vec![0; CHUNK];
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return send.send(Err(e)).map_err(drop),
        };
        chunk.truncate(n);
        send.send(Ok(chunk)).map_err(drop)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{self, Reason, Stage};

    #[test]
    fn a_finite_input_is_read_whole() {
        let text: Vec<u8> = (0..3 * CHUNK).map(|i| (i % 251) as u8).collect();
        let copy = text.clone();
        let read = read_all(move || Ok(io::Cursor::new(copy))).expect("read");
        assert_eq!(read, text);
    }

    #[test]
    fn an_open_error_is_the_read_error() {
        let read = read_all(|| Err::<io::Empty, _>(io::Error::other("no such FIFO")));
        assert_eq!(
            read.err().map(|e| e.to_string()),
            Some("no such FIFO".into())
        );
    }

    #[test]
    fn an_endless_input_stops_at_the_deadline() {
        let stop = limits::run(Some(Duration::from_millis(200)), || {
            read_all(|| Ok(io::repeat(b' '))).map(|b| b.len())
        });
        let stop = stop.err().map(|s| (s.reason.name(), s.stage));
        assert_eq!(stop, Some(("timeout", Stage::Reading)));
    }

    #[test]
    fn a_silent_input_stops_at_the_deadline() {
        struct Silent;
        impl Read for Silent {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
        }
        let stop = limits::run(Some(Duration::from_millis(200)), || {
            read_all(|| Ok(Silent)).map(|b| b.len())
        });
        let reason = stop.err().map(|s| s.reason);
        assert!(matches!(reason, Some(Reason::Timeout(_))), "{reason:?}");
    }
}
