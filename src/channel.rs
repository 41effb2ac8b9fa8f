//! What is measured: one small adapter per channel crate behind the [`Channel`] trait,
//! and [`CHANNELS`], the table of every channel the benchmark knows.
//!
//! Adding a crate is one `impl Channel` plus one line in [`CHANNELS`].

use std::collections::VecDeque;
use std::future::Future;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::{FutureExt, SinkExt, Stream, StreamExt};

use crate::scenario::{self, Prepared, Workload};

/// One forwarded packet: who sent it, its place in that sender's sequence, and the
/// shared payload buffer (cloning it is a reference-count bump, as an SFU forwards one buffer).
///
/// `Default` (sender 0, seq 0, an empty static payload, no allocation) is what thingbuf
/// fills its empty slots with.
#[derive(Debug, Clone, Default)]
pub struct Message {
    /// Index of the sending task, `0..tasks`.
    pub sender: u32,
    /// Position of this message in its sender's sequence, starting at 0.
    pub seq: u32,
    /// When it was handed to `send`: a raw reading of the run's clock ([`crate::latency::RunClock`]);
    /// 0 without `--latency`.
    pub sent_at: u64,
    /// The packet body.
    pub payload: Bytes,
}

/// The receiver has gone away; the message was not delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

/// A bounded async channel, seen through the few operations the scenarios need.
///
/// Every method maps to the crate's own async API; no crate is wrapped in an adapter
/// that the others do not pay for.
pub trait Channel: 'static {
    /// Name used on the command line, in the console and in the CSV.
    const NAME: &'static str;
    /// The crates.io crate that provides it (its version goes into the run's JSON).
    const CRATE: &'static str;
    /// Slots the crate grants each live sender on top of the buffer it is given.
    /// The adapter subtracts them, so a channel with `s` senders needs `capacity >= s * SLOTS_PER_SENDER`.
    const SLOTS_PER_SENDER: usize = 0;

    /// Sending half; cloned once per sending task in cloned-send.
    type Sender: Clone + Send + 'static;
    /// Receiving half.
    type Receiver: Send + 'static;

    /// A channel that holds exactly `capacity` messages in flight when `senders` senders exist.
    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver);

    /// Sends one message, waiting while the channel is full.
    fn send(sender: &mut Self::Sender, message: Message) -> impl Future<Output = Result<(), Closed>> + Send;

    /// Receives one message; `None` once every sender is gone and the channel is empty.
    fn recv(receiver: &mut Self::Receiver) -> impl Future<Output = Option<Message>> + Send;

    /// The crate's own `Stream` over the receiver, for merging in merged-recv.
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_;
}

/// `tokio::sync::mpsc::channel`.
pub struct TokioMpsc;

impl Channel for TokioMpsc {
    const NAME: &'static str = "tokio-mpsc";
    const CRATE: &'static str = "tokio";
    type Sender = tokio::sync::mpsc::Sender<Message>;
    type Receiver = tokio::sync::mpsc::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        tokio::sync::mpsc::channel(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        // tokio's Receiver is not a Stream itself; poll_recv is what its own wrapper calls.
        futures::stream::poll_fn(|cx| receiver.poll_recv(cx))
    }
}

/// `flume::bounded`, with `send_async` / `recv_async` / `stream`.
pub struct Flume;

impl Channel for Flume {
    const NAME: &'static str = "flume";
    const CRATE: &'static str = "flume";
    type Sender = flume::Sender<Message>;
    type Receiver = flume::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        flume::bounded(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send_async(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv_async().await.ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver.stream()
    }
}

/// `async_channel::bounded`; its `Receiver` is a `Stream` itself.
pub struct AsyncChannel;

impl Channel for AsyncChannel {
    const NAME: &'static str = "async-channel";
    const CRATE: &'static str = "async-channel";
    type Sender = async_channel::Sender<Message>;
    type Receiver = async_channel::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        async_channel::bounded(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await.ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        // The Receiver is the Stream, but it is !Unpin, so a `&mut` to it is not; a clone is
        // the same receiver (async-channel receivers are multi-consumer handles).
        receiver.clone()
    }
}

/// `futures::channel::mpsc::channel` (the futures-channel crate), sent through its `Sink` with `feed`.
pub struct FuturesChannel;

impl Channel for FuturesChannel {
    const NAME: &'static str = "futures-channel";
    const CRATE: &'static str = "futures-channel";
    // futures-channel guarantees every sender one slot of its own on top of the buffer.
    const SLOTS_PER_SENDER: usize = 1;
    type Sender = futures::channel::mpsc::Sender<Message>;
    type Receiver = futures::channel::mpsc::Receiver<Message>;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        futures::channel::mpsc::channel(capacity - senders * Self::SLOTS_PER_SENDER)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        // `feed` returns once the message is queued, as the other crates' sends do;
        // `SinkExt::send` would also flush, waiting until the receiver has drained the buffer.
        sender.feed(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.next().await
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver
    }
}

/// `kanal::bounded_async`; merged-recv streams its `recv` future (see [`Kanal::stream`]).
pub struct Kanal;

impl Channel for Kanal {
    const NAME: &'static str = "kanal";
    const CRATE: &'static str = "kanal";
    type Sender = kanal::AsyncSender<Message>;
    type Receiver = kanal::AsyncReceiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        kanal::bounded_async(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await.ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        // Not `receiver.stream()`: kanal 0.1.1's ReceiveStream corrupts the heap when it is
        // polled again while pending, as StreamMap and buffer_unordered do (abort here with
        // `--merge stream-map --tasks 64`; fereidani/kanal#63, fixed on kanal's main branch,
        // not released). Its `recv` future, one per message, is sound.
        futures::stream::unfold(receiver, |receiver| async move {
            receiver.recv().await.ok().map(|message| (message, receiver))
        })
    }
}

/// `thingbuf::mpsc::channel` (the async one), with its default recycling policy.
pub struct Thingbuf;

impl Channel for Thingbuf {
    const NAME: &'static str = "thingbuf";
    const CRATE: &'static str = "thingbuf";
    type Sender = thingbuf::mpsc::Sender<Message>;
    type Receiver = thingbuf::mpsc::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        thingbuf::mpsc::channel(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        // thingbuf's Receiver is not a Stream and the crate has none; poll_recv is its own
        // poll-level receive (the one its recv future runs), so this is what a Stream would call.
        futures::stream::poll_fn(|cx| receiver.poll_recv(cx))
    }
}

/// `tachyonix::channel`; its `Receiver` is a `Stream` itself.
pub struct Tachyonix;

impl Channel for Tachyonix {
    const NAME: &'static str = "tachyonix";
    const CRATE: &'static str = "tachyonix";
    type Sender = tachyonix::Sender<Message>;
    type Receiver = tachyonix::Receiver<Message>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        tachyonix::channel(capacity)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await.ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver
    }
}

/// `crossfire::mpsc::bounded_async`: the async sender and the async receiver of crossfire's
/// multi-producer, single-consumer array channel.
pub struct Crossfire;

impl Channel for Crossfire {
    const NAME: &'static str = "crossfire";
    const CRATE: &'static str = "crossfire";
    type Sender = crossfire::MAsyncTx<crossfire::mpsc::Array<Message>>;
    // `into_stream` takes the receiver by value, so the adapter keeps crossfire's own
    // `AsyncStream`; it derefs to the `AsyncRx`, whose `recv` cloned-send uses.
    type Receiver = crossfire::stream::AsyncStream<crossfire::mpsc::Array<Message>>;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        let (sender, receiver) = crossfire::mpsc::bounded_async(capacity);
        (sender, receiver.into_stream())
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        receiver.recv().await.ok()
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        receiver
    }
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
/// 12 KiB, well inside a core's L1 data cache.
pub const RECV_MANY_LIMIT: usize = 256;

/// tokio's mpsc receiver, and the batch it took with `recv_many` that is not handed out yet.
#[derive(Debug)]
pub struct RecvManyReceiver {
    receiver: tokio::sync::mpsc::Receiver<Message>,
    /// Taken from the channel, in channel order; these no longer count against its capacity.
    batch: VecDeque<Message>,
    limit: usize,
}

impl RecvManyReceiver {
    /// The next message, taking a new batch with `poll_recv_many` when the last one is used up.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Message>> {
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
    const NAME: &'static str = "tokio-recv-many";
    const CRATE: &'static str = "tokio";
    type Sender = tokio::sync::mpsc::Sender<Message>;
    type Receiver = RecvManyReceiver;

    fn bounded(capacity: usize, _senders: usize) -> (Self::Sender, Self::Receiver) {
        let (sender, receiver) = tokio::sync::mpsc::channel(capacity);
        let limit = capacity.min(RECV_MANY_LIMIT);
        (sender, RecvManyReceiver { receiver, batch: VecDeque::with_capacity(limit), limit })
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        sender.send(message).await.map_err(|_| Closed)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        // The batch's next message without a poll; a refill polls what `recv_many` polls.
        if let Some(message) = receiver.batch.pop_front() {
            return Some(message);
        }
        std::future::poll_fn(|cx| receiver.poll_next(cx)).await
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        futures::stream::poll_fn(|cx| receiver.poll_next(cx))
    }
}

/// A channel in the table: its names and the scenario code instantiated for it.
#[derive(Debug)]
pub struct ChannelEntry {
    /// [`Channel::NAME`].
    pub name: &'static str,
    /// [`Channel::CRATE`].
    pub crate_name: &'static str,
    /// [`Channel::SLOTS_PER_SENDER`].
    pub slots_per_sender: usize,
    /// Spawns one run of a workload on the current tokio runtime; see [`scenario::prepare`].
    pub prepare: fn(&Workload) -> Prepared,
    /// How many messages the channel accepts with no receiver taking any; see [`probe_capacity`].
    pub probe_capacity: fn(capacity: usize, senders: usize) -> usize,
}

impl ChannelEntry {
    /// The table line for channel `C`.
    pub const fn of<C: Channel>() -> Self {
        Self {
            name: C::NAME,
            crate_name: C::CRATE,
            slots_per_sender: C::SLOTS_PER_SENDER,
            prepare: scenario::prepare::<C>,
            probe_capacity: probe_capacity::<C>,
        }
    }

    /// Whether this channel can hold exactly `capacity` messages with `senders` senders.
    pub fn supports(&self, capacity: usize, senders: usize) -> bool {
        capacity >= 1 && capacity >= senders * self.slots_per_sender
    }
}

/// Every channel, in the order the sweep runs them.
pub const CHANNELS: &[ChannelEntry] = &[
    ChannelEntry::of::<TokioMpsc>(),
    ChannelEntry::of::<Flume>(),
    ChannelEntry::of::<AsyncChannel>(),
    ChannelEntry::of::<FuturesChannel>(),
    ChannelEntry::of::<Kanal>(),
    ChannelEntry::of::<Thingbuf>(),
    ChannelEntry::of::<Tachyonix>(),
    ChannelEntry::of::<Crossfire>(),
    ChannelEntry::of::<TokioRecvMany>(),
];

/// Channels that misbehave on purpose, for the harness's own tests (cargo feature `faults`).
#[cfg(feature = "faults")]
pub const FAULTY: &[ChannelEntry] =
    &[ChannelEntry::of::<crate::faults::Hang>(), ChannelEntry::of::<crate::faults::Lossy>()];
/// Channels that misbehave on purpose: none in a normal build.
#[cfg(not(feature = "faults"))]
pub const FAULTY: &[ChannelEntry] = &[];

/// Every channel `--channels` accepts: [`CHANNELS`], then [`FAULTY`].
pub fn known() -> impl Iterator<Item = &'static ChannelEntry> {
    CHANNELS.iter().chain(FAULTY)
}

/// Looks a channel up by its [`Channel::NAME`].
pub fn find(name: &str) -> Option<&'static ChannelEntry> {
    known().find(|entry| entry.name == name)
}

/// Counts how many messages a channel made for `capacity` slots and `senders` senders
/// accepts while nobody receives: every sender sends, round-robin, until each one's send
/// would wait. This is the channel's effective capacity, which must equal `capacity`.
pub fn probe_capacity<C: Channel>(capacity: usize, senders: usize) -> usize {
    let (sender, receiver) = C::bounded(capacity, senders);
    let mut senders = scenario::clone_senders(sender, senders);
    let payload = Bytes::from_static(b"probe");
    // Stop well past the expected count so a channel that never fills still ends the probe.
    let limit = 2 * capacity + senders.len() + 16;
    let mut accepted = 0;
    while accepted < limit {
        let mut progressed = false;
        for sender in &mut senders {
            let message = Message { sender: 0, seq: 0, sent_at: 0, payload: payload.clone() };
            // A send that would wait is dropped unfinished, which cancels it.
            if let Some(Ok(())) = C::send(sender, message).now_or_never() {
                accepted += 1;
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    drop(receiver);
    accepted
}
