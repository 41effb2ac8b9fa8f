//! Measuring a channel of your own: one `impl Channel` and one call of `app::main_with`.
//!
//! `MutexQueue` is a small honest bounded channel (a `Mutex<VecDeque>` and two
//! `tokio::sync::Notify`). The binary this builds is channel-bench with one more channel:
//! the same command line, CSV, summary and plot, and the same checks (the exact-capacity
//! probe before each cell, the delivery verification on every sample).
//!
//! ```text
//! cargo run --release --example custom_channel -- --quick
//! cargo run --release --example custom_channel -- --channels mutex-queue,tokio-mpsc --latency --pace 20ms --send try --tasks 64,512
//! ```
//!
//! `docs/custom-channel.md` walks through it.

use std::collections::VecDeque;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard};

use channel_bench::channel::{Channel, Closed, Item, TrySendError};
use channel_bench::registry::ChannelEntry;
use futures::Stream;
use tokio::sync::Notify;

/// The channels this binary adds to the built-in ones.
pub static EXTRA: &[ChannelEntry] = &[ChannelEntry::of::<MutexQueue>()];

/// `--count-allocs` counts through channel-bench's allocator; without these two lines it
/// would count nothing.
#[global_allocator]
static ALLOCATOR: channel_bench::run::allocs::CountingAllocator = channel_bench::run::allocs::CountingAllocator;

fn main() -> ExitCode {
    channel_bench::app::main_with(EXTRA)
}

/// A bounded MPSC queue: a `VecDeque` behind a mutex; senders wait on `not_full`, the one
/// receiver on `not_empty`.
pub struct MutexQueue;

/// What the halves share.
struct Shared<T> {
    state: Mutex<State<T>>,
    not_full: Notify,
    not_empty: Notify,
}

struct State<T> {
    queue: VecDeque<T>,
    capacity: usize,
    senders: usize,
    receiver_alive: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding the lock leaves a consistent queue: push and pop are single calls.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues `message` if a slot is free; hands it back if not.
    fn try_push(&self, message: T) -> Result<(), (TrySendError, T)> {
        let mut state = self.lock();
        if !state.receiver_alive {
            return Err((TrySendError::Closed, message));
        }
        if state.queue.len() == state.capacity {
            return Err((TrySendError::Full, message));
        }
        state.queue.push_back(message);
        drop(state);
        self.not_empty.notify_one();
        Ok(())
    }

    /// The next message; `Err(true)` when the queue is empty and every sender is gone,
    /// `Err(false)` when it is only empty.
    fn try_pop(&self) -> Result<T, bool> {
        let mut state = self.lock();
        match state.queue.pop_front() {
            Some(message) => {
                drop(state);
                self.not_full.notify_one();
                Ok(message)
            }
            None => Err(state.senders == 0),
        }
    }
}

/// The sending half: a clone is one more sender.
pub struct QueueSender<T>(Arc<Shared<T>>);

impl<T> Clone for QueueSender<T> {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        QueueSender(self.0.clone())
    }
}

impl<T> Drop for QueueSender<T> {
    fn drop(&mut self) {
        let last = {
            let mut state = self.0.lock();
            state.senders -= 1;
            state.senders == 0
        };
        if last {
            // The receiver may be waiting for a message that will never come.
            self.0.not_empty.notify_one();
        }
    }
}

/// The receiving half.
pub struct QueueReceiver<T>(Arc<Shared<T>>);

impl<T> Drop for QueueReceiver<T> {
    fn drop(&mut self) {
        self.0.lock().receiver_alive = false;
        // Waiting senders must see the close instead of waiting forever.
        self.0.not_full.notify_waiters();
    }
}

/// A [`MutexQueue`] of `capacity` slots.
pub fn queue<T>(capacity: usize) -> (QueueSender<T>, QueueReceiver<T>) {
    let state = State { queue: VecDeque::with_capacity(capacity), capacity, senders: 1, receiver_alive: true };
    let shared = Arc::new(Shared { state: Mutex::new(state), not_full: Notify::new(), not_empty: Notify::new() });
    (QueueSender(shared.clone()), QueueReceiver(shared))
}

impl Channel for MutexQueue {
    const NAME: &'static str = "mutex-queue";
    // Not a crates.io crate: the run's JSON records its version as "unknown".
    const CRATE: &'static str = "example";
    const VERSION: Option<&'static str> = Some(env!("CARGO_PKG_VERSION"));
    type Sender<T: Item> = QueueSender<T>;
    type Receiver<T: Item> = QueueReceiver<T>;

    fn bounded<T: Item>(capacity: usize, _senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        queue(capacity)
    }

    async fn send<T: Item>(sender: &mut Self::Sender<T>, mut message: T) -> Result<(), Closed> {
        loop {
            // Registered before looking, so a slot freed between the look and the wait still wakes us.
            let notified = sender.0.not_full.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            match sender.0.try_push(message) {
                Ok(()) => return Ok(()),
                Err((TrySendError::Closed, _)) => return Err(Closed),
                Err((TrySendError::Full, back)) => message = back,
            }
            notified.await;
        }
    }

    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        sender.0.try_push(message).map_err(|(error, _)| error)
    }

    async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        loop {
            let notified = receiver.0.not_empty.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            match receiver.0.try_pop() {
                Ok(message) => return Some(message),
                Err(true) => return None,
                Err(false) => notified.await,
            }
        }
    }

    fn stream<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
        futures::stream::unfold(receiver, |receiver| async move {
            Self::recv(receiver).await.map(|message| (message, receiver))
        })
    }
}
