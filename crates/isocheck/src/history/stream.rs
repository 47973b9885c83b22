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
//!
//! The same thread feeds `jepsen/streaming.rs`, which reads a history op
//! by op; following a file still being written, it reads again at the
//! file's end until told the file is complete.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// Bytes read at once.
const CHUNK: usize = 1 << 20;
/// How long the caller waits for a chunk before it polls the limits again.
pub(super) const WAIT: Duration = Duration::from_millis(50);
/// How long a reader that follows a growing file waits at its end before
/// it reads again.
const FOLLOW_WAIT: Duration = Duration::from_millis(50);

/// What the reader's thread hands over: a chunk, or the error that ended it.
pub(super) type Chunks = Receiver<io::Result<Vec<u8>>>;

/// Reads everything `open` gives (called on the reader's thread, since
/// opening a FIFO blocks until a writer opens it too), polling the limits.
pub fn read_all<R: Read>(
    open: impl FnOnce() -> io::Result<R> + Send + 'static,
) -> io::Result<Vec<u8>> {
    let receive = spawn_reader(open, || false)?;
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

/// Starts the thread that opens and reads the input, and hands over its
/// chunks; the channel closes at the input's end. At the end, while
/// `follow` says more may come (a file still being written), the thread
/// waits [`FOLLOW_WAIT`] and reads again.
pub(super) fn spawn_reader<R: Read>(
    open: impl FnOnce() -> io::Result<R> + Send + 'static,
    follow: impl Fn() -> bool + Send + 'static,
) -> io::Result<Chunks> {
    // Two chunks in flight at most: the text grows where the budget sees it.
    let (send, receive) = mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
    std::thread::Builder::new()
        .name("isocheck-read".into())
        .spawn(move || {
            // Nobody to tell when the receiver is gone: the check stopped.
            let _ = match open() {
                Ok(reader) => pump(reader, &send, follow),
                Err(e) => send.send(Err(e)).map_err(drop),
            };
        })?;
    Ok(receive)
}

/// Sends the chunks of `reader` until its end (once `follow` says no more
/// will come), an error, or the receiver is gone.
fn pump(
    mut reader: impl Read,
    send: &mpsc::SyncSender<io::Result<Vec<u8>>>,
    follow: impl Fn() -> bool,
) -> Result<(), ()> {
    let mut chunk = Vec::new();
    loop {
        if chunk.is_empty() {
            chunk = vec![0; CHUNK];
        }
        // Asked before the read: what was written before the caller said
        // the input is complete is read before it ends.
        let more = follow();
        let n = match reader.read(&mut chunk) {
            Ok(0) if more => {
                std::thread::sleep(FOLLOW_WAIT);
                continue;
            }
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return send.send(Err(e)).map_err(drop),
        };
        // A short read (a pipe, a growing file) is copied, so that the
        // buffer is not allocated and zeroed again for a few bytes.
        let full = match n < CHUNK / 4 {
            true => chunk[..n].to_vec(),
            false => {
                chunk.truncate(n);
                std::mem::take(&mut chunk)
            }
        };
        send.send(Ok(full)).map_err(drop)?;
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
