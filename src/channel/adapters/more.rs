//! Adapters for loole, rapidfire, asyncband and fibre: the same shape as those in
//! [`super`], kept in a file of their own so each stays short.

use futures::Stream;

use super::full_or_closed;
use crate::channel::{Channel, Closed, Item, TrySendError};

/// `loole::bounded`, with `send_async` / `recv_async` / `stream` (flume's API, no unsafe code).
pub struct Loole;

impl Channel for Loole {
    const NAME: &'static str = "loole";
    type Sender<T: Item> = loole::Sender<T>;
    type Receiver<T: Item> = loole::Receiver<T>;

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        loole::bounded(capacity)
    }
    send_and_recv!(send_async, recv_async, loole::TrySendError::Full);
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // As flume's: `try_iter`, since `drain` takes everything queued, past the limit.
        let Ok(first) = receiver.recv_async().await else { return false };
        batch.push(first);
        batch.extend(receiver.try_iter().take(limit - 1));
        true
    }
    fn stream<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
        receiver.stream()
    }
}

/// `rapidfire::mpsc::bounded`: a lock-free block queue with one receiver; no Stream, so
/// merged-recv streams its `recv` future.
pub struct Rapidfire;

impl Channel for Rapidfire {
    const NAME: &'static str = "rapidfire";
    type Sender<T: Item> = rapidfire::Sender<T>;
    type Receiver<T: Item> = rapidfire::mpsc::Receiver<T>;

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        rapidfire::mpsc::bounded(capacity)
    }
    send_and_recv!(send, recv, rapidfire::TrySendError::Full);
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // Awaits only the first message; fails only once closed and drained.
        receiver.recv_many(batch, limit).await.is_ok()
    }
}

/// `asyncband::mpsc::bounded`: a mutex-guarded queue with a FIFO wait list for senders; no
/// Stream and a private poll-level receive, so merged-recv streams its `recv` future.
pub struct Asyncband;

impl Channel for Asyncband {
    const NAME: &'static str = "asyncband";
    type Sender<T: Item> = asyncband::mpsc::BoundedSender<T>;
    type Receiver<T: Item> = asyncband::mpsc::BoundedReceiver<T>;

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        asyncband::mpsc::bounded(capacity)
    }
    send_and_recv!(send, recv, asyncband::mpsc::TrySendError::Full);
}

/// `fibre::mpsc::bounded_async`; its `AsyncReceiver` is a `Stream` itself.
pub struct Fibre;

impl Channel for Fibre {
    const NAME: &'static str = "fibre";
    type Sender<T: Item> = fibre::mpsc::BoundedAsyncSender<T>;
    type Receiver<T: Item> = fibre::mpsc::BoundedAsyncReceiver<T>;

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        fibre::mpsc::bounded_async(capacity)
    }
    send_and_recv!(send, recv, fibre::error::TrySendError::Full);
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // Waits for a run of at least one message; fails only once every sender is gone and drained.
        receiver.recv_batch_mut(batch, limit).await.is_ok()
    }
    fn stream<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
        receiver
    }
}
