//! Keeps the database file in memory: its pages are mapped into the server, so
//! that the operating system keeps them.
//!
//! Under writes a read's pages come from the operating system's cache of the
//! file (each reader's own cache is emptied whenever the file changed), and the
//! operating system drops first the pages no process maps and nobody read
//! lately: old games', within minutes on the test machine. So the server maps
//! the file, and has its pages read into the mapping, as the file grows.
//!
//! Nothing is ever read through the mapping: it only holds the pages. Were the
//! file cut short (by a `VACUUM`, say), the pages past its end would leave the
//! mapping, and nothing would fault. Under memory pressure the operating system
//! still takes mapped pages back, as it does the cache's; those are not held again.
#![allow(unsafe_code, reason = "mapping a file is a system call rusqlite does not make for us")]

use std::fs::File;
use std::path::Path;
use std::ptr::NonNull;

/// How much of the file one turn reads into the mapping: a file of gigabytes is
/// taken in turn by turn, while the checkpoints go on between them.
const MOST_BYTES_A_TURN: usize = 64 << 20;

/// Linux reads a mapping's pages in when asked (since 5.14); elsewhere they are
/// only read ahead into the cache, not held.
#[cfg(target_os = "linux")]
const READ_IN: libc::c_int = libc::MADV_POPULATE_READ;
#[cfg(not(target_os = "linux"))]
const READ_IN: libc::c_int = libc::MADV_WILLNEED;

/// The database file's pages, mapped and held, up to a bound.
#[derive(Debug)]
pub(super) struct ResidentFile {
    file: File,
    /// The mapping: address space for `most_bytes`, of which `held` are read in.
    mapped: NonNull<libc::c_void>,
    most_bytes: usize,
    held: usize,
    /// The system's page: what the kernel reads in is whole pages of it.
    page_bytes: usize,
}

// SAFETY: the mapping is never read or written through, only handed to the
// kernel, by whichever one thread owns it.
unsafe impl Send for ResidentFile {}

impl ResidentFile {
    /// Maps up to the first `most_bytes` of the file at `path`, none held yet.
    ///
    /// # Errors
    /// When the file cannot be opened or mapped.
    pub(super) fn map(path: &Path, most_bytes: usize) -> std::io::Result<ResidentFile> {
        use std::os::fd::AsRawFd;
        let file = File::open(path)?;
        // SAFETY: a new read-only mapping of a file this owns, at an address the
        // kernel chooses. Address space past the file's end may be mapped: only
        // touching it would fault, and nothing does.
        let mapped = unsafe {
            libc::mmap(std::ptr::null_mut(), most_bytes, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0)
        };
        if mapped == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let mapped = NonNull::new(mapped).expect("a mapping that did not fail has an address");
        // SAFETY: reads a constant of the system.
        let page_bytes = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        Ok(ResidentFile { file, mapped, most_bytes, held: 0, page_bytes })
    }

    /// Reads into the mapping what the file has grown by since the last turn,
    /// up to [`MOST_BYTES_A_TURN`]; answers the bytes held.
    ///
    /// # Errors
    /// When the file's size cannot be read, or the kernel refuses (a kernel
    /// older than Linux 5.14 does not know how).
    pub(super) fn hold_growth(&mut self) -> std::io::Result<usize> {
        let size = usize::try_from(self.file.metadata()?.len()).unwrap_or(usize::MAX);
        let until = size.min(self.most_bytes).min(self.held + MOST_BYTES_A_TURN) / self.page_bytes * self.page_bytes;
        if until > self.held {
            // SAFETY: `held` and `until` lie within the mapping's `most_bytes`, and
            // reading pages in changes nothing that the mapping holds.
            let start = unsafe { self.mapped.as_ptr().byte_add(self.held) };
            if unsafe { libc::madvise(start, until - self.held, READ_IN) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            self.held = until;
        }
        Ok(self.held)
    }
}

impl Drop for ResidentFile {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, whole, which nothing refers to.
        unsafe { libc::munmap(self.mapped.as_ptr(), self.most_bytes) };
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn the_whole_pages_of_the_file_are_held_as_it_grows_up_to_the_bound() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("qttt.db");
        let mut file = File::create(&path).unwrap();
        file.write_all(&[7; 3 * 4096 + 100]).unwrap();
        let mut resident = ResidentFile::map(&path, 8 * 4096).unwrap();
        assert_eq!(resident.hold_growth().unwrap(), 3 * 4096, "the page the file has begun is held once it is whole");
        file.write_all(&[7; 4096]).unwrap();
        assert_eq!(resident.hold_growth().unwrap(), 4 * 4096);
        file.write_all(&[7; 20 * 4096]).unwrap();
        assert_eq!(resident.hold_growth().unwrap(), 8 * 4096, "no more than the bound");
    }

    #[test]
    fn a_file_that_cannot_be_opened_is_not_held() {
        let folder = tempfile::tempdir().unwrap();
        let error = ResidentFile::map(&folder.path().join("missing.db"), 4096).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    }
}
