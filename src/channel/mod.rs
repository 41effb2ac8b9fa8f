//! What is measured: the [`Channel`] trait, the [`Item`]s it carries ([`Message`], [`Record`]), and the
//! [`adapters`], one small impl per crate. The bottom layer: it imports nothing of the crate.
//!
//! Adding a crate is one `impl Channel` in [`adapters`] plus one line in
//! `registry::CHANNELS`. Measuring a channel of your own needs no fork: implement
//! [`Channel`] in your crate and hand `registry::ChannelEntry::of::<YourChannel>()` to
//! `app::main_with` (`examples/custom_channel.rs`, `docs/custom-channel.md`).
//!
//! # What an adapter guarantees
//!
//! The harness checks each of these on every cell, and fails the cell when one does not hold:
//! - **Exact capacity.** [`Channel::bounded`]`(capacity, senders)` holds exactly `capacity`
//!   messages while nobody receives, with `senders` senders alive: [`probe_capacity`] must
//!   return `capacity`. A crate that grants each sender slots of its own subtracts them
//!   ([`Channel::SLOTS_PER_SENDER`]). Checked before a cell's first sample.
//! - **In order per sender, nothing lost, nothing repeated.** Every message a send accepted
//!   is received exactly once, and each sender's messages in the order they were sent
//!   (messages of different senders may interleave freely). Checked on every sample.
//! - **Close.** When every sender is dropped, [`Channel::recv`] returns the messages still
//!   queued and then `None`, and [`Channel::stream`] ends the same way; when the receiver is
//!   dropped, sends fail with [`Closed`] rather than wait forever.
//! - **Waiting and not waiting.** [`Channel::send`] waits while the channel is full and
//!   wakes when a slot frees; [`Channel::try_send`] never waits: it queues the message or
//!   fails at once with [`TrySendError::Full`].

use std::future::Future;

use bytes::Bytes;
use futures::{FutureExt, Stream};

pub mod adapters;
#[cfg(feature = "faults")]
pub mod faults;

/// What a channel carries, as the scenarios make and check it: a [`Message`] (a shared payload
/// handle, as an SFU forwards one buffer) or a [`Record`] moved by value.
///
/// `Default` is what thingbuf fills its empty slots with, and what the capacity probe sends.
pub trait Item: Clone + Default + Send + Sync + Unpin + 'static {
    /// Bytes of body each item carries by value, `None` where the body is a shared payload
    /// whose length varies.
    const BODY: Option<usize>;

    /// The item `seq` of sender `sender`, sent at `sent_at`; `payload` gives the shared body of
    /// an item that carries one, and is not called otherwise.
    fn stamp(sender: u32, seq: u32, sent_at: u64, payload: impl FnOnce() -> Bytes) -> Self;
    /// Index of the sending task, `0..tasks`.
    fn sender(&self) -> u32;
    /// Position of this item in its sender's sequence, starting at 0.
    fn seq(&self) -> u32;
    /// When it was handed to `send`: a raw reading of the run's clock; 0 without `--latency`.
    fn sent_at(&self) -> u64;
    /// Its body: the shared payload's bytes, or the record's own.
    fn body(&self) -> &[u8];
    /// Whether the body arrived as it was stamped; a shared payload is never copied, so true.
    fn intact(&self) -> bool {
        true
    }
}

/// [`Item`]'s accessors of the header fields `sender`, `seq` and `sent_at`.
macro_rules! header {
    () => {
        fn sender(&self) -> u32 {
            self.sender
        }
        fn seq(&self) -> u32 {
            self.seq
        }
        fn sent_at(&self) -> u64 {
            self.sent_at
        }
    };
}

/// One forwarded packet: who sent it, its place in that sender's sequence, and the
/// shared payload buffer (cloning it is a reference-count bump, as an SFU forwards one buffer).
///
/// `Default` is sender 0, seq 0, an empty static payload, no allocation.
#[derive(Debug, Clone, Default)]
pub struct Message {
    /// Index of the sending task, `0..tasks`.
    pub sender: u32,
    /// Position of this message in its sender's sequence, starting at 0.
    pub seq: u32,
    /// When it was handed to `send`: a raw reading of the run's clock (`run::latency::RunClock`);
    /// 0 without `--latency`.
    pub sent_at: u64,
    /// The packet body.
    pub payload: Bytes,
}

impl Item for Message {
    const BODY: Option<usize> = None;

    #[inline(always)]
    fn stamp(sender: u32, seq: u32, sent_at: u64, payload: impl FnOnce() -> Bytes) -> Self {
        Message { sender, seq, sent_at, payload: payload() }
    }
    header!();
    fn body(&self) -> &[u8] {
        &self.payload
    }
}

/// A record of `16 + BODY` bytes moved by value: the same header as a [`Message`] and a body of
/// its own, every byte the low byte of its `seq`, so a torn copy shows at its two ends.
#[derive(Debug, Clone)]
pub struct Record<const BODY: usize> {
    /// Index of the sending task, `0..tasks`.
    pub sender: u32,
    /// Position of this record in its sender's sequence, starting at 0.
    pub seq: u32,
    /// When it was handed to `send`; 0 without `--latency`.
    pub sent_at: u64,
    /// The body, carried inline.
    pub body: [u8; BODY],
}

impl<const BODY: usize> Default for Record<BODY> {
    fn default() -> Self {
        Record { sender: 0, seq: 0, sent_at: 0, body: [0; BODY] }
    }
}

impl<const BODY: usize> Item for Record<BODY> {
    const BODY: Option<usize> = Some(BODY);

    #[inline(always)]
    fn stamp(sender: u32, seq: u32, sent_at: u64, _payload: impl FnOnce() -> Bytes) -> Self {
        Record { sender, seq, sent_at, body: [seq as u8; BODY] }
    }
    header!();
    fn body(&self) -> &[u8] {
        &self.body
    }
    fn intact(&self) -> bool {
        let mark = self.seq as u8;
        self.body.first().is_none_or(|&first| first == mark) && self.body.last().is_none_or(|&last| last == mark)
    }
}

/// The receiver has gone away; the message was not delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

/// Why [`Channel::try_send`] did not queue its message; the message is dropped either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrySendError {
    /// No slot was free: the message was dropped (`--send try` counts it).
    Full,
    /// The receiver has gone away.
    Closed,
}

/// A bounded async channel, seen through the few operations the scenarios need; public API
/// for measuring channels of your own (the module's documentation lists what an
/// implementation must guarantee).
///
/// Every method maps to the crate's own async API; no crate is wrapped in an adapter
/// that the others do not pay for.
pub trait Channel: 'static {
    /// Name used on the command line, in the console and in the CSV.
    const NAME: &'static str;
    /// The crates.io crate that provides it (its version goes into the run's JSON); by default
    /// the crate named [`Channel::NAME`].
    const CRATE: &'static str = Self::NAME;
    /// The crate's version where this build's Cargo.lock does not hold the crate: a channel of
    /// your own sets `Some(env!("CARGO_PKG_VERSION"))`.
    const VERSION: Option<&'static str> = None;
    /// Slots the crate grants each live sender on top of the buffer it is given.
    /// The adapter subtracts them, so a channel with `s` senders needs `capacity >= s * SLOTS_PER_SENDER`.
    const SLOTS_PER_SENDER: usize = 0;

    /// What [`Channel::set_up`] does, as the run's JSON and docs/channels.md record it; empty
    /// when the crate's docs advise no setup.
    const SETUP: &'static str = "";

    /// The setup the crate's docs advise for the host, once per process before any channel is
    /// made (a backoff tuned to the CPUs, say); nothing by default.
    fn set_up() {}

    /// Sending half of a channel of `T`; cloned once per sending task in cloned-send.
    type Sender<T: Item>: Clone + Send + 'static;
    /// Receiving half of a channel of `T`.
    type Receiver<T: Item>: Send + 'static;

    /// A channel that holds exactly `capacity` messages in flight when `senders` senders exist.
    fn bounded<T: Item>(capacity: usize, senders: usize) -> (Self::Sender<T>, Self::Receiver<T>);

    /// Sends one message, waiting while the channel is full.
    fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> impl Future<Output = Result<(), Closed>> + Send;

    /// Queues one message if a slot is free, without waiting; the crate's own non-blocking send
    /// (`--send try`).
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError>;

    /// Receives one message; `None` once every sender is gone and the channel is empty.
    fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Future<Output = Option<T>> + Send;

    /// Receives a batch into `batch` (empty on entry): waits for one message, then takes what is
    /// already queued without waiting, until `batch` holds `limit` messages (`limit >= 1`); `false`
    /// once every sender is gone and the channel is empty. By default it polls [`Channel::recv`]
    /// once for each further message and stops at the first that would wait, dropping that
    /// pending future: sound only where `recv` is cancel-safe (dropping it pending loses no
    /// message). An adapter whose `recv` is not, or whose crate has a batch receive, overrides it.
    fn recv_batch<T: Item>(
        receiver: &mut Self::Receiver<T>,
        batch: &mut Vec<T>,
        limit: usize,
    ) -> impl Future<Output = bool> + Send {
        async move {
            let Some(first) = Self::recv(receiver).await else { return false };
            batch.push(first);
            while batch.len() < limit {
                match Self::recv(receiver).now_or_never() {
                    Some(Some(message)) => batch.push(message),
                    _ => break,
                }
            }
            true
        }
    }

    /// The crate's own `Stream` over the receiver, for merging in merged-recv; by default, for a
    /// crate with no `Stream` and no public poll-level receive, its `recv` future, one per message.
    fn stream<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
        futures::stream::unfold(receiver, |receiver| async move {
            Self::recv(receiver).await.map(|message| (message, receiver))
        })
    }
}

/// Counts how many messages a channel made for `capacity` slots and `senders` senders
/// accepts while nobody receives: every sender sends, round-robin, until each one's send
/// would wait. This is the channel's effective capacity, which must equal `capacity`.
pub fn probe_capacity<C: Channel>(capacity: usize, senders: usize) -> usize {
    let (sender, receiver) = C::bounded::<Message>(capacity, senders);
    // `senders - 1` clones plus the original: exactly `senders` exist, as futures-channel's capacity needs.
    let mut senders: Vec<_> = std::iter::repeat_n(sender, senders).collect();
    // Stop well past the expected count so a channel that never fills still ends the probe.
    let limit = 2 * capacity + senders.len() + 16;
    let mut accepted = 0;
    while accepted < limit {
        // A send that would wait is dropped unfinished, which cancels it.
        let sends = senders.iter_mut().map(|sender| C::send(sender, Message::default()).now_or_never());
        match sends.filter(|sent| matches!(sent, Some(Ok(())))).count() {
            0 => break,
            sent => accepted += sent,
        }
    }
    drop(receiver);
    accepted
}
