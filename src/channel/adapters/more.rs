//! Adapters for loole, rapidfire, asyncband and fibre: the same shape as those in
//! [`super`], kept in a file of their own so each stays short.

use futures::Stream;

use super::full_or_closed;
use crate::channel::{Channel, Closed, Message, TrySendError};

/// `loole::bounded`, with `send_async` / `recv_async` / `stream` (flume's API, no unsafe code).
pub struct Loole;

impl Channel for Loole {
    const NAME: &'static str = "loole";
    type Sender = loole::Sender<Message>;
    type Receiver = loole::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        loole::bounded(capacity)
    }
    send_and_recv!(send_async, recv_async, loole::TrySendError::Full);
    async fn recv_batch(receiver: &mut Self::Receiver, batch: &mut Vec<Message>, limit: usize) -> bool {
        // As flume's: `try_iter`, since `drain` takes everything queued, past the limit.
        let Ok(first) = receiver.recv_async().await else { return false };
        batch.push(first);
        batch.extend(receiver.try_iter().take(limit - 1));
        true
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver.stream()
    }
}

/// `rapidfire::mpsc::bounded`: a lock-free block queue with one receiver; no Stream, so
/// merged-recv streams its `recv` future.
pub struct Rapidfire;

impl Channel for Rapidfire {
    const NAME: &'static str = "rapidfire";
    type Sender = rapidfire::Sender<Message>;
    type Receiver = rapidfire::mpsc::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        rapidfire::mpsc::bounded(capacity)
    }
    send_and_recv!(send, recv, rapidfire::TrySendError::Full);
    async fn recv_batch(receiver: &mut Self::Receiver, batch: &mut Vec<Message>, limit: usize) -> bool {
        // Awaits only the first message; fails only once closed and drained.
        receiver.recv_many(batch, limit).await.is_ok()
    }
}

/// `asyncband::mpsc::bounded`: a mutex-guarded queue with a FIFO wait list for senders; no
/// Stream and a private poll-level receive, so merged-recv streams its `recv` future.
pub struct Asyncband;

impl Channel for Asyncband {
    const NAME: &'static str = "asyncband";
    type Sender = asyncband::mpsc::BoundedSender<Message>;
    type Receiver = asyncband::mpsc::BoundedReceiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        asyncband::mpsc::bounded(capacity)
    }
    send_and_recv!(send, recv, asyncband::mpsc::TrySendError::Full);
}

/// `fibre::mpsc::bounded_async`; its `AsyncReceiver` is a `Stream` itself.
pub struct Fibre;

impl Channel for Fibre {
    const NAME: &'static str = "fibre";
    type Sender = fibre::mpsc::BoundedAsyncSender<Message>;
    type Receiver = fibre::mpsc::BoundedAsyncReceiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        fibre::mpsc::bounded_async(capacity)
    }
    send_and_recv!(send, recv, fibre::error::TrySendError::Full);
    async fn recv_batch(receiver: &mut Self::Receiver, batch: &mut Vec<Message>, limit: usize) -> bool {
        // Waits for a run of at least one message; fails only once every sender is gone and drained.
        receiver.recv_batch_mut(batch, limit).await.is_ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver
    }
}
