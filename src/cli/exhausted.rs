//! The memory-limit answer written when the system refuses memory inside a
//! check (an address-space limit): `isocheck::limits` hands the [`Stop`] here
//! from inside the global allocator, so nothing here may allocate. The
//! answer goes out in the format the command asked for, and the process
//! exits with status 2 (unknown).

use isocheck::limits::{self, Stop};
use isocheck::report::stop::{self, Format};
use std::sync::atomic::{AtomicU8, Ordering};

/// How the answer is written (a [`Format`] as its `u8`).
static FORMAT: AtomicU8 = AtomicU8::new(0);

/// Makes [`out_of_memory`] the end of a check the system refuses memory.
pub fn install() {
    limits::on_exhausted(out_of_memory);
}

/// Says how the answer is written, should it be.
pub fn answer_as(format: Format) {
    FORMAT.store(format as u8, Ordering::Relaxed);
}

/// Writes the memory-limit answer without allocating and exits with
/// status 2 (unknown).
fn out_of_memory(stop: &Stop) -> ! {
    let format = Format::from_u8(FORMAT.load(Ordering::Relaxed));
    let mut text = StackText::default();
    let _ = stop::write(&mut text, stop, format);
    write_raw(format.fd(), text.as_bytes());
    std::process::exit(2)
}

/// Text written on the stack, cut short when it would not fit.
struct StackText {
    bytes: [u8; 1024],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        StackText {
            bytes: [0; 1024],
            len: 0,
        }
    }
}

impl StackText {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let Some(room) = self.bytes.get_mut(self.len..end) else {
            return Err(std::fmt::Error);
        };
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Writes to a file descriptor without std's locks or buffers (which may be
/// held, or allocate, when the system runs out).
#[cfg(unix)]
fn write_raw(fd: i32, bytes: &[u8]) {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    // SAFETY: fd 1 or 2, open for the life of the process; ManuallyDrop
    // keeps it open.
    let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
    let _ = file.write_all(bytes);
}

#[cfg(not(unix))]
fn write_raw(_fd: i32, _bytes: &[u8]) {}
