//! What one connection is doing: requests being computed, answers being
//! written, and when it last did anything, so the listener can close a
//! connection that has gone quiet and drop one whose reader has stopped.
//!
//! - **Quiet**: nothing computed nor written for the header timeout. hyper's
//!   header timer closes an idle HTTP/1.1 connection, but HTTP/2 has no such
//!   timer, so without this a client could hold connections (and the cap's
//!   permits) open for ever.
//! - **Stalled**: an answer being written has not taken its next part for
//!   the header timeout. An answer counts as in flight until written, so a
//!   slow reader of a large one (a page of 1,000 contacts, the catalog) is
//!   not cut while it reads; one that stops reading is dropped. Answers are
//!   handed to hyper in parts of [`PART`] bytes, which hyper asks for only as
//!   its write buffer drains, so each part taken is progress.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};

use crate::http::response::HeldUntilWritten;
use http_body::{Body, Frame, SizeHint};

/// The largest part of an answer handed to hyper at once.
pub const PART: usize = 64 << 10;

pub struct Activity {
    /// Requests being computed or answered.
    in_flight: AtomicUsize,
    /// Of those, answers being written.
    writing: AtomicUsize,
    /// When the connection last went quiet (nothing in flight), or opened.
    quiet_since: Mutex<Instant>,
    /// When an answer being written last took a part.
    progressed: Mutex<Instant>,
}

/// A request in flight, from its head until its answer is written (or
/// abandoned); its end marks the connection quiet if it was the last.
pub struct Busy(Arc<Activity>);

impl Activity {
    pub fn new() -> Activity {
        let now = Instant::now();
        Activity {
            in_flight: AtomicUsize::new(0),
            writing: AtomicUsize::new(0),
            quiet_since: Mutex::new(now),
            progressed: Mutex::new(now),
        }
    }

    pub fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        Busy(self.clone())
    }

    pub fn busy(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
    }

    fn progress(&self) {
        *self.progressed.lock().expect("activity lock") = Instant::now();
    }

    /// Resolves once nothing has been in flight for `after`.
    pub async fn idle_for(&self, after: Duration) {
        loop {
            let quiet_for = match self.in_flight.load(Ordering::SeqCst) {
                0 => self.quiet_since.lock().expect("activity lock").elapsed(),
                _ => Duration::ZERO,
            };
            if quiet_for >= after && self.in_flight.load(Ordering::SeqCst) == 0 {
                return;
            }
            // Saturating: a request may have begun since `quiet_for` was read.
            tokio::time::sleep(after.saturating_sub(quiet_for)).await;
        }
    }

    /// Resolves once answers are being written, nothing is being computed,
    /// and no answer has taken a part for `after`.
    pub async fn stalled_for(&self, after: Duration) {
        loop {
            let writing = self.writing.load(Ordering::SeqCst);
            let waiting = match writing > 0 && writing == self.in_flight.load(Ordering::SeqCst) {
                true => self.progressed.lock().expect("activity lock").elapsed(),
                false => Duration::ZERO,
            };
            if waiting >= after {
                return;
            }
            tokio::time::sleep(after.saturating_sub(waiting).max(Duration::from_millis(10))).await;
        }
    }
}

impl Busy {
    /// The request's answer, which keeps the request in flight until it is
    /// written.
    pub fn answer<B>(self, body: B, held: Option<HeldUntilWritten>) -> Answer<B> {
        self.0.writing.fetch_add(1, Ordering::SeqCst);
        self.0.progress();
        Answer { body: Box::pin(body), rest: Bytes::new(), busy: Some(self), _held: held }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut quiet_since = self.0.quiet_since.lock().expect("activity lock");
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            *quiet_since = Instant::now();
        }
    }
}

/// An answer's body, handed to hyper in parts of at most [`PART`] bytes,
/// each marking progress; the request stays in flight until its end.
pub struct Answer<B> {
    body: Pin<Box<B>>,
    /// What is left of the data frame being handed out.
    rest: Bytes,
    /// `None` once the body has ended.
    busy: Option<Busy>,
    /// Dropped with the answer, once hyper is done with it.
    _held: Option<HeldUntilWritten>,
}

impl<B> Answer<B> {
    fn part(&mut self) -> Bytes {
        self.rest.split_to(self.rest.len().min(PART))
    }

    fn ended(&mut self) {
        if let Some(busy) = self.busy.take() {
            busy.0.writing.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl<B> Drop for Answer<B> {
    fn drop(&mut self) {
        self.ended();
    }
}

impl<B> Body for Answer<B>
where
    B: Body,
    B::Data: Buf,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        // Every field is `Unpin` (the body is boxed).
        let this = self.get_mut();
        if let Some(busy) = &this.busy {
            busy.0.progress();
        }
        if !this.rest.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(this.part()))));
        }
        match this.body.as_mut().poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let frame = frame.map_data(|mut data| data.copy_to_bytes(data.remaining()));
                match frame.into_data() {
                    Ok(data) => {
                        this.rest = data;
                        Poll::Ready(Some(Ok(Frame::data(this.part()))))
                    }
                    Err(trailers) => Poll::Ready(Some(Ok(trailers))),
                }
            }
            Poll::Ready(None) => {
                this.ended();
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.body.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_is_handed_out_in_parts_and_stays_in_flight_until_its_end() {
        let activity = Arc::new(Activity::new());
        let whole: String = (0..PART * 2 + 10).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let mut answer = activity.begin().answer(whole.clone(), None);
        assert_eq!(answer.size_hint().exact(), Some(whole.len() as u64));
        let mut parts: Vec<Bytes> = Vec::new();
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut answer).poll_frame(cx)).await {
            assert!(activity.busy(), "in flight until the body ends");
            parts.push(frame.unwrap().into_data().unwrap());
        }
        assert_eq!(parts.iter().map(Bytes::len).collect::<Vec<_>>(), [PART, PART, 10]);
        assert_eq!(parts.concat(), whole.as_bytes());
        assert!(!activity.busy());
        assert_eq!(activity.writing.load(Ordering::SeqCst), 0);
        drop(answer);
        assert!(!activity.busy(), "counted once");
    }

    #[tokio::test]
    async fn an_answer_dropped_unwritten_ends_its_request() {
        let activity = Arc::new(Activity::new());
        let answer = activity.begin().answer(String::from("never read"), None);
        assert!(activity.busy());
        drop(answer);
        assert!(!activity.busy());
        assert_eq!(activity.writing.load(Ordering::SeqCst), 0);
    }
}
