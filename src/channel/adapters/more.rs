//! Adapters for loole, rapidfire, asyncband, fibre and batch-channel: the same shape as those
//! in [`super`], kept in a file of their own so each stays short.

use futures::{FutureExt, Stream};

use super::full_or_closed;
use crate::channel::{Channel, Closed, Item, TrySendError};

/// `loole::bounded`, with `send_async` / `recv_async` / `stream` (flume's API, no unsafe code).
pub struct Loole;

impl Channel for Loole {
    pair!("loole", loole::Sender, loole::Receiver, loole::bounded);
    send_and_recv!(send_async, recv_async, loole::TrySendError::Full);
    recv_batch_by_try_iter!();
    stream!(receiver => receiver.stream());
}

/// `rapidfire::mpsc::bounded`: a lock-free block queue with one receiver; no Stream, so
/// merged-recv streams its `recv` future.
pub struct Rapidfire;

impl Channel for Rapidfire {
    pair!("rapidfire", rapidfire::Sender, rapidfire::mpsc::Receiver, rapidfire::mpsc::bounded);
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
    pair!("asyncband", asyncband::mpsc::BoundedSender, asyncband::mpsc::BoundedReceiver, asyncband::mpsc::bounded);
    send_and_recv!(send, recv, asyncband::mpsc::TrySendError::Full);
}

/// `fibre::mpsc::bounded_async`; its `AsyncReceiver` is a `Stream` itself.
pub struct Fibre;

impl Channel for Fibre {
    pair!("fibre", fibre::mpsc::BoundedAsyncSender, fibre::mpsc::BoundedAsyncReceiver, fibre::mpsc::bounded_async);
    send_and_recv!(send, recv, fibre::error::TrySendError::Full);
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // Waits for a run of at least one message; fails only once every sender is gone and drained.
        receiver.recv_batch_mut(batch, limit).await.is_ok()
    }
    stream!(receiver => receiver);
}

/// `batch_channel::bounded`: one mutex over a queue, built to move many values a call; its
/// `Receiver::recv_vec` is the batch receive.
pub struct BatchChannel;

impl Channel for BatchChannel {
    pair!("batch-channel", batch_channel::Sender, batch_channel::Receiver, batch_channel::bounded);
    send_and_recv!(send, recv -> Option);
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        // The crate has no `try_send`: its own send future polled once. It queues the message if
        // a slot is free; otherwise it is dropped unfinished, which unlinks its waker and drops
        // the message, so it never waits.
        match sender.send(message).now_or_never() {
            Some(Ok(())) => Ok(()),
            Some(Err(_)) => Err(TrySendError::Closed),
            None => Err(TrySendError::Full),
        }
    }
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // `recv_batch(limit)` into the caller's Vec: waits for one value, takes up to `limit` of
        // those queued; leaves the Vec empty only once every sender is gone and it is drained.
        receiver.recv_vec(limit, batch).await;
        !batch.is_empty()
    }
    stream!(receiver => receiver.stream());
}
