//! One adapter per channel crate: how to make a bounded pair, send, receive, and stream.

use std::collections::VecDeque;
use std::task::{Context, Poll};

use futures::{SinkExt, Stream, StreamExt};

use super::{Channel, Closed, Item, TrySendError};

/// `send` and `recv` of an adapter through the crate's own async methods `$send(message)`,
/// which fails only once the receiver is gone, and `$recv()`, which fails (or, with `-> Option`,
/// returns `None`) once every sender is gone and the channel is drained: the shape of most crates'
/// API. With `$full`, `try_send` too, through the crate's `try_send`, whose error `$full` means
/// the channel was full.
macro_rules! send_and_recv {
    ($send:ident, $recv:ident -> Option) => {
        async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
            sender.$send(message).await.map_err(|_| Closed)
        }
        async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
            receiver.$recv().await
        }
    };
    ($send:ident, $recv:ident) => {
        async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
            sender.$send(message).await.map_err(|_| Closed)
        }
        async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
            receiver.$recv().await.ok()
        }
    };
    ($send:ident, $recv:ident, $full:path) => {
        send_and_recv!($send, $recv);
        fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
            sender.try_send(message).map_err(|error| full_or_closed(matches!(error, $full(_))))
        }
    };
}

/// The name, types and `bounded` of an adapter whose crate makes a pair of `$sender<T>` and
/// `$receiver<T>` with `$bounded(capacity)`, granting no sender slots of its own; or, given
/// `|capacity, senders| …`, with that expression.
macro_rules! pair {
    ($name:literal, $($sender:ident)::+, $($receiver:ident)::+, $bounded:path) => {
        pair!($name, $($sender)::+, $($receiver)::+, |capacity, _senders| $bounded(capacity));
    };
    ($name:literal, $($sender:ident)::+, $($receiver:ident)::+, |$capacity:ident, $senders:ident| $bounded:expr) => {
        const NAME: &'static str = $name;
        type Sender<T: Item> = $($sender)::+<T>;
        type Receiver<T: Item> = $($receiver)::+<T>;

        fn bounded<T: Item>($capacity: usize, $senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
            $bounded
        }
    };
}

/// `stream` of an adapter: `$stream`, made from the receiver `$receiver`.
macro_rules! stream {
    ($receiver:ident => $stream:expr) => {
        fn stream<T: Item>($receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
            $stream
        }
    };
}

/// `recv_batch` of a crate with flume's API: the first message awaited with `recv_async`, the
/// rest taken with `try_iter`, not `drain`: drain takes everything queued, past the limit.
macro_rules! recv_batch_by_try_iter {
    () => {
        async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
            let Ok(first) = receiver.recv_async().await else { return false };
            batch.push(first);
            batch.extend(receiver.try_iter().take(limit - 1));
            true
        }
    };
}

mod more;
pub use more::{Asyncband, BatchChannel, Fibre, Loole, Rapidfire};

/// A crate's `try_send` error as [`TrySendError`]: `Full` when `full`, else `Closed` (any other
/// error a crate can return means the receiver is gone, or never comes from an mpsc send).
fn full_or_closed(full: bool) -> TrySendError {
    if full { TrySendError::Full } else { TrySendError::Closed }
}

/// `tokio::sync::mpsc::channel`.
pub struct TokioMpsc;

impl Channel for TokioMpsc {
    const CRATE: &'static str = "tokio";
    pair!("tokio-mpsc", tokio::sync::mpsc::Sender, tokio::sync::mpsc::Receiver, tokio::sync::mpsc::channel);
    send_and_recv!(send, recv -> Option);
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        sender
            .try_send(message)
            .map_err(|error| full_or_closed(matches!(error, tokio::sync::mpsc::error::TrySendError::Full(_))))
    }
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // 0 only once every sender is gone and the channel is drained (the limit is never 0).
        receiver.recv_many(batch, limit).await > 0
    }
    // tokio's Receiver is not a Stream itself; poll_recv is what its own wrapper calls.
    stream!(receiver => futures::stream::poll_fn(|cx| receiver.poll_recv(cx)));
}

/// `flume::bounded`, with `send_async` / `recv_async` / `stream`.
pub struct Flume;

impl Channel for Flume {
    pair!("flume", flume::Sender, flume::Receiver, flume::bounded);
    send_and_recv!(send_async, recv_async, flume::TrySendError::Full);
    recv_batch_by_try_iter!();
    stream!(receiver => receiver.stream());
}

/// `async_channel::bounded`; its `Receiver` is a `Stream` itself.
pub struct AsyncChannel;

impl Channel for AsyncChannel {
    pair!("async-channel", async_channel::Sender, async_channel::Receiver, async_channel::bounded);
    send_and_recv!(send, recv, async_channel::TrySendError::Full);
    // The Receiver is the Stream, but it is !Unpin, so a `&mut` to it is not; a clone is
    // the same receiver (async-channel receivers are multi-consumer handles).
    stream!(receiver => receiver.clone());
}

/// `futures::channel::mpsc::channel` (the futures-channel crate), sent through its `Sink` with `feed`.
pub struct FuturesChannel;

impl Channel for FuturesChannel {
    // futures-channel guarantees every sender one slot of its own on top of the buffer.
    const SLOTS_PER_SENDER: usize = 1;
    pair!("futures-channel", futures::channel::mpsc::Sender, futures::channel::mpsc::Receiver, |capacity, senders| {
        futures::channel::mpsc::channel(capacity - senders * Self::SLOTS_PER_SENDER)
    });
    async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
        // `feed` returns once the message is queued, as the other crates' sends do;
        // `SinkExt::send` would also flush, waiting until the receiver has drained the buffer.
        sender.feed(message).await.map_err(|_| Closed)
    }
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        // Not the others' semantics: futures-channel's `try_send` also succeeds when the
        // buffer is full but this sender's own guaranteed slot is free, and after that the
        // sender stays "parked" until the receiver takes one of its messages. With the buffer
        // cut to `capacity - senders` the total held is still exactly `capacity`, but which
        // sender's message is dropped differs: each sender always gets one through.
        sender.try_send(message).map_err(|error| full_or_closed(error.is_full()))
    }
    async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        receiver.next().await
    }
    stream!(receiver => receiver);
}

/// `kanal::bounded_async`; merged-recv streams its `recv` future (see the impl).
pub struct Kanal;

impl Channel for Kanal {
    pair!("kanal", kanal::AsyncSender, kanal::AsyncReceiver, kanal::bounded_async);
    send_and_recv!(send, recv);
    async fn recv_batch<T: Item>(receiver: &mut Self::Receiver<T>, batch: &mut Vec<T>, limit: usize) -> bool {
        // `try_recv`, not the default's dropped `recv` future: a sender may hand its message to a
        // waiting receive future, and kanal drops the message with the future. Not `drain_into`
        // either: it takes everything queued, past the limit.
        let Ok(first) = receiver.recv().await else { return false };
        batch.push(first);
        while batch.len() < limit {
            match receiver.try_recv() {
                Ok(Some(message)) => batch.push(message),
                _ => break,
            }
        }
        true
    }
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        // kanal reports a full channel as `Ok(false)` (and drops the message), not as an error.
        match sender.try_send(message) {
            Ok(true) => Ok(()),
            Ok(false) => Err(TrySendError::Full),
            Err(_) => Err(TrySendError::Closed),
        }
    }
    // No `stream`, so merged-recv streams its `recv` future, one per message, which is sound;
    // not `receiver.stream()`: kanal 0.1.1's ReceiveStream corrupts the heap when it is polled
    // again while pending, as StreamMap and buffer_unordered do (abort here with `--merge
    // stream-map --tasks 64`; fereidani/kanal#63, fixed on kanal's main branch, not released).
}

/// `thingbuf::mpsc::channel` (the async one), with its default recycling policy.
pub struct Thingbuf;

impl Channel for Thingbuf {
    pair!("thingbuf", thingbuf::mpsc::Sender, thingbuf::mpsc::Receiver, thingbuf::mpsc::channel);
    send_and_recv!(send, recv -> Option);
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        sender.try_send(message).map_err(|error| full_or_closed(error.is_full()))
    }
    // thingbuf's Receiver is not a Stream and the crate has none; poll_recv is its own
    // poll-level receive (the one its recv future runs), so this is what a Stream would call.
    stream!(receiver => futures::stream::poll_fn(|cx| receiver.poll_recv(cx)));
}

/// `tachyonix::channel`; its `Receiver` is a `Stream` itself.
pub struct Tachyonix;

impl Channel for Tachyonix {
    pair!("tachyonix", tachyonix::Sender, tachyonix::Receiver, tachyonix::channel);
    send_and_recv!(send, recv, tachyonix::TrySendError::Full);
    stream!(receiver => receiver);
}

/// `crossfire::mpsc::bounded_async`: the async sender and the async receiver of crossfire's
/// multi-producer, single-consumer array channel.
pub struct Crossfire;

impl Channel for Crossfire {
    const NAME: &'static str = "crossfire";
    const SETUP: &'static str = "crossfire::detect_backoff_cfg(): yield instead of spinning when the process has one \
                                 CPU; with two or more it leaves the default";
    type Sender<T: Item> = crossfire::MAsyncTx<crossfire::mpsc::Array<T>>;
    // `into_stream` takes the receiver by value, so the adapter keeps crossfire's own
    // `AsyncStream`; it derefs to the `AsyncRx`, whose `recv` cloned-send uses.
    type Receiver<T: Item> = crossfire::stream::AsyncStream<crossfire::mpsc::Array<T>>;

    fn set_up() {
        crossfire::detect_backoff_cfg();
    }

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        let (sender, receiver) = crossfire::mpsc::bounded_async(capacity);
        (sender, receiver.into_stream())
    }
    send_and_recv!(send, recv, crossfire::TrySendError::Full);
    stream!(receiver => receiver);
}

/// tokio's mpsc channel again, its receiver taking whatever is queued, up to
/// [`RECV_MANY_LIMIT`] messages, with one `Receiver::recv_many` call.
pub struct TokioRecvMany;

/// The most messages one `recv_many` call takes; never more than the channel's capacity,
/// which is all it can hold. Messages taken into the batch no longer count against the
/// channel's capacity, so while the receiver works through a batch up to `capacity + limit`
/// messages are in flight: 256 keeps that excess small beside the default 65,536 slots, yet
/// shares one call's fixed cost (the channel's atomics, tokio's coop budget, the waker) among
/// up to 256 messages, and 256 messages of 48 bytes (payloads are shared, not copied) are
/// 12 KiB, well inside a core's L1 data cache (records moved by value take more).
pub const RECV_MANY_LIMIT: usize = 256;

/// tokio's mpsc receiver, and the batch it took with `recv_many` that is not handed out yet.
#[derive(Debug)]
pub struct RecvManyReceiver<T> {
    receiver: tokio::sync::mpsc::Receiver<T>,
    /// Taken from the channel, in channel order; these no longer count against its capacity.
    batch: VecDeque<T>,
    limit: usize,
}

impl<T> RecvManyReceiver<T> {
    /// The next message, taking a new batch with `poll_recv_many` when the last one is used up.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if self.batch.is_empty() {
            // recv_many appends to a Vec; an empty VecDeque turns into one and back without
            // copying or allocating, so the batch keeps its buffer.
            let mut buffer = Vec::from(std::mem::take(&mut self.batch));
            let polled = self.receiver.poll_recv_many(cx, &mut buffer, self.limit);
            self.batch = VecDeque::from(buffer);
            if polled.is_pending() {
                return Poll::Pending;
            }
        }
        // Empty after a ready poll_recv_many: every sender is gone and the channel is drained.
        Poll::Ready(self.batch.pop_front())
    }
}

impl Channel for TokioRecvMany {
    const CRATE: &'static str = "tokio";
    pair!("tokio-recv-many", tokio::sync::mpsc::Sender, RecvManyReceiver, |capacity, _senders| {
        let (sender, receiver) = tokio::sync::mpsc::channel(capacity);
        let limit = capacity.min(RECV_MANY_LIMIT);
        (sender, RecvManyReceiver { receiver, batch: VecDeque::with_capacity(limit), limit })
    });
    async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        // The batch's next message without a poll; a refill polls what `recv_many` polls.
        if let Some(message) = receiver.batch.pop_front() {
            return Some(message);
        }
        std::future::poll_fn(|cx| receiver.poll_next(cx)).await
    }
    stream!(receiver => futures::stream::poll_fn(|cx| receiver.poll_next(cx)));
}
