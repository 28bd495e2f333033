//! A cap on a request's head, counted on the connection's bytes before actix
//! buffers them.
//!
//! actix itself buffers an unfinished head up to 128 KB per connection before it
//! answers 431, so a few thousand slow clients could hold hundreds of MB. Here no
//! more than [`HEAD_LIMIT`] bytes may come between two blank lines, the end of a
//! head, but for the body its `Content-Length` announces, which is not counted:
//! a body over [`BODY_LIMIT`](super::BODY_LIMIT) is read and dropped by the
//! extractor, which then refuses it. A body without a length counts, as it lies
//! between a blank line and the next. Past the cap the bytes are not handed on:
//! actix sees the connection end, writes what it still owes, and closes it, and
//! the close writes a 431 first.

use std::io;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll, ready};

use actix_web::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::problem::ApiError;

/// The most bytes a request's head may take: nginx's default for its large
/// header buffers, 4 of 8 KB.
pub(crate) const HEAD_LIMIT: usize = 32 * 1024;

/// The whole answer to a head over the cap, written as the connection closes.
static REFUSAL: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let problem = ApiError::Rejected {
        status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        detail: format!("the request's head is larger than {HEAD_LIMIT} bytes"),
    }
    .problem();
    let body = serde_json::to_string(&problem).expect("a problem serialises");
    format!(
        "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/problem+json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
});

/// How much of a blank line the last bytes read are: a line feed ends a line,
/// and a line with nothing before its line feed but a carriage return is blank,
/// as httparse reads a head.
#[derive(Clone, Copy)]
enum LineEnd {
    /// Within a line.
    None,
    /// Just after a line feed.
    LineFeed,
    /// Just after a line feed and a carriage return.
    CarriageReturn,
}

/// The start of a header line that announces a body's length, lower case.
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// How much of each line is kept, to read a `Content-Length` from.
const LINE_KEPT: usize = 48;

/// A connection whose heads are capped at [`HEAD_LIMIT`].
pub struct CappedHead<Io> {
    io: Io,
    since_blank_line: usize,
    line_end: LineEnd,
    /// The start of the line being read, and its length.
    line: [u8; LINE_KEPT],
    line_length: usize,
    /// The length the head being read announces for its body.
    announced: Option<u64>,
    /// The bytes of the body announced that are still to come, not counted.
    body_left: u64,
    /// Once over the cap: how many bytes of [`REFUSAL`] are written.
    refused: Option<usize>,
}

impl<Io> CappedHead<Io> {
    /// `io`, its heads capped.
    pub fn new(io: Io) -> CappedHead<Io> {
        CappedHead {
            io,
            since_blank_line: 0,
            line_end: LineEnd::None,
            line: [0; LINE_KEPT],
            line_length: 0,
            announced: None,
            body_left: 0,
            refused: None,
        }
    }

    /// Counts `bytes` read; false when they pass the cap.
    fn within_cap(&mut self, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() {
            let body = usize::try_from(self.body_left).unwrap_or(usize::MAX).min(bytes.len());
            if body > 0 {
                self.body_left -= body as u64;
                bytes = &bytes[body..];
                continue;
            }
            let byte = bytes[0];
            bytes = &bytes[1..];
            self.since_blank_line += 1;
            if self.since_blank_line > HEAD_LIMIT {
                return false;
            }
            self.line_end = match (self.line_end, byte) {
                (LineEnd::LineFeed | LineEnd::CarriageReturn, b'\n') => {
                    // The head's end: its body follows.
                    self.since_blank_line = 0;
                    self.body_left = self.announced.take().unwrap_or(0);
                    LineEnd::None
                }
                (LineEnd::LineFeed, b'\r') => LineEnd::CarriageReturn,
                (_, b'\n') => {
                    self.line_ended();
                    LineEnd::LineFeed
                }
                _ => {
                    if let Some(kept) = self.line.get_mut(self.line_length) {
                        *kept = byte.to_ascii_lowercase();
                    }
                    self.line_length += 1;
                    LineEnd::None
                }
            };
        }
        true
    }

    /// Reads the length a `Content-Length` line announces, as the line ends.
    fn line_ended(&mut self) {
        let line = &self.line[..self.line_length.min(LINE_KEPT)];
        if let Some(value) = line.strip_prefix(CONTENT_LENGTH) {
            let value = std::str::from_utf8(value).unwrap_or_default().trim();
            self.announced = value.parse().ok();
        }
        self.line_length = 0;
    }
}

impl<Io: AsyncRead + Unpin> AsyncRead for CappedHead<Io> {
    fn poll_read(self: Pin<&mut Self>, context: &mut Context<'_>, buffer: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refused.is_some() {
            return Poll::Ready(Ok(()));
        }
        let before = buffer.filled().len();
        ready!(Pin::new(&mut this.io).poll_read(context, buffer))?;
        if !this.within_cap(&buffer.filled()[before..]) {
            // Nothing read: to actix, the end of the connection.
            buffer.set_filled(before);
            this.refused = Some(0);
        }
        Poll::Ready(Ok(()))
    }
}

impl<Io: AsyncWrite + Unpin> AsyncWrite for CappedHead<Io> {
    fn poll_write(self: Pin<&mut Self>, context: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(context, bytes)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(context, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(context)
    }

    /// After everything actix wrote: the refusal, if the cap was passed.
    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(written) = &mut this.refused {
            while *written < REFUSAL.len() {
                match ready!(Pin::new(&mut this.io).poll_write(context, &REFUSAL[*written..]))? {
                    0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    count => *written += count,
                }
            }
        }
        Pin::new(&mut this.io).poll_shutdown(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_line_ends_a_head_with_either_line_ending() {
        for blank in ["\r\n\r\n", "\n\n", "\n\r\n"] {
            let mut connection = CappedHead::new(());
            let head = "x".repeat(HEAD_LIMIT - blank.len());
            assert!(connection.within_cap(format!("{head}{blank}").as_bytes()), "{blank:?}");
            assert!(connection.within_cap(head.as_bytes()), "{blank:?}");
        }
    }

    #[test]
    fn a_head_one_byte_over_the_cap_is_refused_however_it_arrives() {
        let mut whole = CappedHead::new(());
        assert!(!whole.within_cap("x".repeat(HEAD_LIMIT + 1).as_bytes()));
        let mut in_lines = CappedHead::new(());
        let line = "X-Pad: 1234567\r\n";
        assert!(in_lines.within_cap(line.repeat(HEAD_LIMIT / line.len()).as_bytes()));
        assert!(!in_lines.within_cap(b"\r"));
    }

    #[test]
    fn the_body_a_head_announces_is_not_counted_and_the_next_head_is() {
        let mut connection = CappedHead::new(());
        let head = "POST /api/v1/games HTTP/1.1\r\nContent-Length: 100000\r\n\r\n";
        assert!(connection.within_cap(head.as_bytes()));
        assert!(connection.within_cap("x".repeat(100_000).as_bytes()));
        assert!(connection.within_cap(b"GET / HTTP/1.1\r\nHost: qttt\r\n"));
        assert!(!connection.within_cap("x".repeat(HEAD_LIMIT).as_bytes()), "the next head is counted");
        // Without a length, a body counts as a head does.
        let mut unannounced = CappedHead::new(());
        assert!(unannounced.within_cap(b"POST / HTTP/1.1\r\n\r\n"));
        assert!(!unannounced.within_cap("x".repeat(HEAD_LIMIT + 1).as_bytes()));
    }

    #[test]
    fn the_refusal_is_a_431_problem_that_closes_the_connection() {
        let refusal = String::from_utf8(REFUSAL.clone()).unwrap();
        let (head, body) = refusal.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 ") && head.contains("\r\nconnection: close"), "{head}");
        assert!(head.contains(&format!("\r\ncontent-length: {}", body.len())), "{head}");
        let problem: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!((problem["status"].as_u64(), problem["code"].as_str()), (Some(431), Some("rejected")));
    }
}
