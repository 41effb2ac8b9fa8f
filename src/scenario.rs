//! How fan-in is driven: cloned-send and merged-recv, each written once, generic over [`Channel`].
//!
//! [`prepare`] spawns every sender and the receiver on the current tokio runtime, parked
//! behind a start gate; the caller ([`crate::measure`]) waits until all are parked, starts
//! its clock, opens the gate and awaits [`Prepared::finish`].

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use futures_buffered::MergeBounded;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use crate::channel::{Channel, Message};
use crate::verify::{Status, Verifier};

/// How the sending tasks reach the one receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Mode {
    /// One bounded channel of `capacity` slots; its sender is cloned into every task.
    ClonedSend,
    /// One bounded channel of `capacity / tasks` slots per task; the receivers are merged
    /// into one stream with `futures_buffered::MergeBounded`.
    MergedRecv,
}

impl Mode {
    /// Every mode, in sweep order.
    pub const ALL: [Mode; 2] = [Mode::ClonedSend, Mode::MergedRecv];

    /// The name used on the command line and in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Mode::ClonedSend => "cloned-send",
            Mode::MergedRecv => "merged-recv",
        }
    }
}

/// One run's shape: what is sent, by how many tasks, through how much buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// How the tasks reach the receiver.
    pub mode: Mode,
    /// Number of sending tasks.
    pub tasks: usize,
    /// Messages sent in total, across all tasks.
    pub messages: u64,
    /// Slots in flight in total: the one channel's in cloned-send, split evenly in merged-recv.
    pub capacity: usize,
    /// Bytes in each message's payload.
    pub payload_bytes: usize,
}

/// The most messages a warm-up run moves. A warm-up only has to start the runtime's threads
/// and warm the allocator; without any, the first of 1,048,576-message samples already
/// matched the rest (README, "Warm-up"), so a full-size one would only cost time.
pub const WARMUP_MESSAGES: u64 = 1 << 16;

impl Workload {
    /// The same workload cut to [`WARMUP_MESSAGES`] (but at least one message per task).
    pub fn warm_up(&self) -> Workload {
        let messages = self.messages.min(WARMUP_MESSAGES.max(self.tasks as u64));
        Workload { messages, ..self.clone() }
    }

    /// Messages that task `task` sends: an even split, the first `messages % tasks` tasks one more.
    pub fn messages_for(&self, task: usize) -> u32 {
        let tasks = self.tasks as u64;
        let extra = u64::from((task as u64) < self.messages % tasks);
        u32::try_from(self.messages / tasks + extra).expect("validated: per-task count fits u32")
    }

    /// Slots of each channel: `capacity` in cloned-send, `capacity / tasks` in merged-recv.
    pub fn capacity_per_channel(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => self.capacity,
            Mode::MergedRecv => self.capacity / self.tasks,
        }
    }

    /// Senders sharing each channel: all tasks in cloned-send, one in merged-recv.
    pub fn senders_per_channel(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => self.tasks,
            Mode::MergedRecv => 1,
        }
    }
}

/// One spawned run, every task parked behind the start gate.
#[derive(Debug)]
pub struct Prepared {
    ready: Arc<Semaphore>,
    participants: u32,
    go: watch::Sender<bool>,
    senders: Vec<JoinHandle<()>>,
    receiver: JoinHandle<Status>,
}

impl Prepared {
    /// Resolves once every sender and the receiver is waiting at the gate.
    pub async fn all_ready(&self) {
        let permits = self.ready.acquire_many(self.participants).await;
        permits.expect("the semaphore is never closed").forget();
    }

    /// Opens the gate: every task starts.
    pub fn release(&self) {
        self.go.send_replace(true);
    }

    /// Waits for the receiver to take its last message and every sender to finish;
    /// returns what the receiver found.
    pub async fn finish(self) -> Status {
        let delivered = match self.receiver.await {
            Ok(status) => status,
            Err(error) => Status::Panicked(format!("receiver: {error}")),
        };
        for sender in self.senders {
            if let Err(error) = sender.await {
                return Status::Panicked(format!("sender: {error}"));
            }
        }
        delivered
    }
}

/// The gate every task waits at before its first message.
#[derive(Clone)]
struct StartGate {
    ready: Arc<Semaphore>,
    go: watch::Receiver<bool>,
}

impl StartGate {
    async fn wait(&mut self) {
        self.ready.add_permits(1);
        // The sender lives in `Prepared` until every task has finished, so this cannot fail.
        let _ = self.go.wait_for(|open| *open).await;
    }
}

/// Makes `count` senders out of one: `count - 1` clones plus the original, so exactly
/// `count` exist (futures-channel's capacity depends on that number).
pub fn clone_senders<S: Clone>(sender: S, count: usize) -> Vec<S> {
    let mut senders: Vec<S> = (1..count).map(|_| sender.clone()).collect();
    senders.push(sender);
    senders
}

/// Spawns one run of `workload` over channel `C` on the current tokio runtime.
///
/// Channels, payloads and tasks are all made here, before any clock starts.
pub fn prepare<C: Channel>(workload: &Workload) -> Prepared {
    let ready = Arc::new(Semaphore::new(0));
    let (go, go_receiver) = watch::channel(false);
    let gate = StartGate { ready: ready.clone(), go: go_receiver };
    let per_task: Vec<u32> = (0..workload.tasks).map(|task| workload.messages_for(task)).collect();
    let verifier = Verifier::new(per_task.clone());
    let capacity = workload.capacity_per_channel();
    let senders_per_channel = workload.senders_per_channel();

    let (sending_halves, receiver) = match workload.mode {
        Mode::ClonedSend => {
            let (sender, receiver) = C::bounded(capacity, senders_per_channel);
            let receiver = tokio::spawn(receive_one::<C>(receiver, gate.clone(), verifier));
            (clone_senders(sender, workload.tasks), receiver)
        }
        Mode::MergedRecv => {
            let (senders, receivers): (Vec<_>, Vec<_>) =
                (0..workload.tasks).map(|_| C::bounded(capacity, senders_per_channel)).unzip();
            let receiver = tokio::spawn(receive_merged::<C>(receivers, gate.clone(), verifier));
            (senders, receiver)
        }
    };

    let senders = sending_halves
        .into_iter()
        .zip(per_task)
        .enumerate()
        .map(|(task, (sender, count))| {
            let payload = Bytes::from(vec![0xA5; workload.payload_bytes]);
            // The first clone of a Vec-backed Bytes allocates its shared header; do it now,
            // so every clone inside the clock is a plain reference-count bump.
            drop(payload.clone());
            let task = u32::try_from(task).expect("validated: tasks fit u32");
            tokio::spawn(send_all::<C>(sender, task, count, payload, gate.clone()))
        })
        .collect();

    let participants = u32::try_from(workload.tasks + 1).expect("validated: tasks fit u32");
    Prepared { ready, participants, go, senders, receiver }
}

async fn send_all<C: Channel>(mut sender: C::Sender, task: u32, count: u32, payload: Bytes, mut gate: StartGate) {
    gate.wait().await;
    for seq in 0..count {
        let message = Message { sender: task, seq, payload: payload.clone() };
        if C::send(&mut sender, message).await.is_err() {
            // The receiver is gone; it reports what it did not get.
            return;
        }
    }
}

async fn receive_one<C: Channel>(mut receiver: C::Receiver, mut gate: StartGate, mut verifier: Verifier) -> Status {
    gate.wait().await;
    while let Some(message) = C::recv(&mut receiver).await {
        verifier.observe(message.sender, message.seq);
    }
    verifier.finish()
}

async fn receive_merged<C: Channel>(
    mut receivers: Vec<C::Receiver>,
    mut gate: StartGate,
    mut verifier: Verifier,
) -> Status {
    let mut merged: MergeBounded<_> = receivers.iter_mut().map(C::stream).collect();
    gate.wait().await;
    while let Some(message) = merged.next().await {
        verifier.observe(message.sender, message.seq);
    }
    verifier.finish()
}
