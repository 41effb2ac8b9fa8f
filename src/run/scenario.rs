//! How fan-in is driven: cloned-send and merged-recv, each written once, generic over [`Channel`].
//!
//! [`prepare`] spawns every sender and the receiver on the current tokio runtime, parked
//! behind a start gate; the caller ([`super::measure`]) waits until all are parked, starts
//! its clock, opens the gate and awaits [`Prepared::finish`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use super::latency::{LatencyRecorder, RunClock};
use super::payload::TaskPayloads;
use super::slow::Slowdown;
use super::stop::Signal;
use super::verify::{Status, Verifier};
use super::workload::{Mode, Pace, SendMode, Workload};
use crate::channel::{Channel, Item, TrySendError};

mod receive;
use receive::{Receiving, receive_merged, receive_one};

/// What a run delivered, as the receiver and the senders saw it.
#[derive(Debug, Default)]
pub struct Delivery {
    /// Whether everything arrived, in order, with its bytes (and reached the sink).
    pub status: Status,
    /// Payload bytes the receiver took.
    pub bytes: u64,
    /// The receiver's latency histogram, with `--latency`; its percentiles are read after the
    /// clock stops ([`LatencyRecorder::finish`]).
    pub latency: Option<LatencyRecorder>,
    /// The mean time between a task's bursts, with `--pace`.
    pub pace_actual: Option<Duration>,
    /// How the paced senders kept to their schedule, with `--pace`.
    pub pacing: Option<Pacing>,
    /// Messages the senders dropped because the channel was full (`--send try`); 0 otherwise.
    pub dropped: u64,
    /// When the receiver stopped at the run's bound (`super::stop`), and the messages it had
    /// taken; `None` when it ran to its end.
    pub stopped: Option<(Instant, u64)>,
}

/// How the paced senders kept to their schedule, summed over every task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Pacing {
    /// Bursts (frames) sent.
    pub frames: u64,
    /// Bursts with at least one message dropped on a full channel (`--send try`).
    pub overflowed: u64,
    /// The latest a burst started after its scheduled time.
    pub lateness_max: Duration,
    /// The mean of every burst's start after its scheduled time.
    pub lateness_mean: Duration,
}

/// One spawned run, every task parked behind the start gate.
#[derive(Debug)]
pub struct Prepared {
    ready: Arc<Semaphore>,
    participants: u32,
    /// When the gate opened; `None` until it does.
    go: watch::Sender<Option<Instant>>,
    senders: Vec<JoinHandle<Sent>>,
    receiver: JoinHandle<Receiving>,
    signal: Arc<Signal>,
}

impl Prepared {
    /// Resolves once every sender and the receiver is waiting at the gate.
    pub async fn all_ready(&self) {
        let permits = self.ready.acquire_many(self.participants).await;
        permits.expect("the semaphore is never closed").forget();
    }

    /// The signal that stops the receiver before its last message (`super::stop::Timer`).
    pub fn signal(&self) -> Arc<Signal> {
        self.signal.clone()
    }

    /// Opens the gate: every task starts.
    pub fn release(&self) {
        self.go.send_replace(Some(Instant::now()));
    }

    /// Waits for the receiver to take its last message and every sender to finish;
    /// returns what the receiver found, checked against what the senders dropped. A receiver
    /// stopped at its bound takes no more: its senders are stopped, and what arrived is checked.
    pub async fn finish(self) -> Delivery {
        let panicked = |status| Delivery { status, ..Delivery::default() };
        let receiving = match self.receiver.await {
            Ok(receiving) => receiving,
            Err(error) => return panicked(Status::Panicked(format!("receiver: {error}"))),
        };
        if receiving.stopped.is_some() {
            for sender in &self.senders {
                sender.abort();
            }
            for sender in self.senders {
                let _ = sender.await;
            }
            return receiving.finish(0);
        }
        let mut sent = Sent::default();
        for sender in self.senders {
            match sender.await {
                Ok(one) => sent.add(one),
                Err(error) => return panicked(Status::Panicked(format!("sender: {error}"))),
            }
        }
        let pace_actual = (sent.intervals > 0).then(|| sent.span / sent.intervals);
        Delivery { pace_actual, pacing: sent.pacing(), ..receiving.finish(sent.dropped) }
    }
}

/// What a sending task reports, and [`Sent::add`] sums over tasks: the intervals between its
/// paced bursts and their span from first to last (enough to tell the real interval of the
/// timer), messages dropped on a full channel, bursts sent and those with a drop, and how late
/// its bursts started against their schedule (the sum and the latest).
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    intervals: u32,
    span: Duration,
    dropped: u64,
    frames: u64,
    overflowed: u64,
    lateness_sum: Duration,
    lateness_max: Duration,
}

impl Sent {
    fn add(&mut self, other: Sent) {
        self.intervals += other.intervals;
        self.span += other.span;
        self.dropped += other.dropped;
        self.frames += other.frames;
        self.overflowed += other.overflowed;
        self.lateness_sum += other.lateness_sum;
        self.lateness_max = self.lateness_max.max(other.lateness_max);
    }

    fn pacing(self) -> Option<Pacing> {
        let frames = u32::try_from(self.frames).ok().filter(|&frames| frames > 0)?;
        Some(Pacing {
            frames: self.frames,
            overflowed: self.overflowed,
            lateness_max: self.lateness_max,
            lateness_mean: self.lateness_sum / frames,
        })
    }
}

/// The gate every task waits at before its first message.
#[derive(Debug, Clone)]
struct StartGate {
    ready: Arc<Semaphore>,
    go: watch::Receiver<Option<Instant>>,
}

impl StartGate {
    /// Says this task is ready, then waits for the gate to open; returns when it opened, which
    /// is the same for every task whichever the runtime polls first.
    async fn wait(&mut self) -> Instant {
        self.ready.add_permits(1);
        // The sender lives in `Prepared` until every task has finished, so this cannot fail.
        let opened = self.go.wait_for(Option::is_some).await.map(|opened| *opened);
        opened.ok().flatten().unwrap_or_else(Instant::now)
    }
}

/// A channel's [`prepare`]: spawns one run of a workload on the current tokio runtime.
pub type Prepare = fn(&Workload) -> Prepared;

/// Spawns one run of `workload` over channel `C` on the current tokio runtime.
pub fn prepare<C: Channel>(workload: &Workload) -> Prepared {
    by_record!(workload.record, prepare_items::<C>(workload))
}

/// Spawns one run of `workload` over channels of `C` that carry `T`.
///
/// Channels, payloads, the histogram, the sink's file and tasks are all made here, before
/// any clock starts.
fn prepare_items<C: Channel, T: Item>(workload: &Workload) -> Prepared {
    let ready = Arc::new(Semaphore::new(0));
    let (go, go_receiver) = watch::channel(None);
    let gate = StartGate { ready: ready.clone(), go: go_receiver };
    let tasks = u32::try_from(workload.tasks).expect("validated: tasks fit u32");
    let clock = workload.latency.then(RunClock::start);
    let sendings: Vec<Sending> = (0..tasks)
        .map(|task| {
            let count = workload.messages_for(task as usize);
            let payloads = TaskPayloads::new(workload.payload, workload.seed, task, count);
            let offset = workload.phase_offset(task);
            Sending { task, count, payloads, clock: clock.clone(), pace: workload.pace, offset }
        })
        .collect();
    let per_task: Vec<u32> = sendings.iter().map(|sending| sending.count).collect();
    let expected_bytes = (sendings.iter())
        .map(|sending| {
            T::BODY.map_or_else(|| sending.payloads.total(sending.count), |body| body as u64 * u64::from(sending.count))
        })
        .sum();
    let receiving = Receiving {
        gate: gate.clone(),
        verifier: Verifier::new(per_task, workload.send == SendMode::Try),
        expected_bytes,
        bytes: 0,
        latency: clock.clone().map(LatencyRecorder::new),
        sink: workload.sink.open(),
        slow: Slowdown::of(C::NAME),
        signal: Arc::new(Signal::default()),
        stopped: None,
        torn: 0,
        batch: workload.batch,
        work: workload.work_per_batch.map(|work| {
            (clock.clone().unwrap_or_else(RunClock::start), u64::try_from(work.as_nanos()).unwrap_or(u64::MAX))
        }),
    };
    let signal = receiving.signal.clone();
    let capacity = workload.capacity_per_channel();
    let senders_per_channel = workload.senders_per_channel();

    let (sending_halves, receiver) = match workload.mode {
        Mode::ClonedSend => {
            let (sender, receiver) = C::bounded::<T>(capacity, senders_per_channel);
            let receiver = tokio::spawn(receive_one::<C, T>(receiver, receiving));
            (std::iter::repeat_n(sender, workload.tasks).collect(), receiver)
        }
        Mode::MergedRecv => {
            let (senders, receivers): (Vec<_>, Vec<_>) =
                (0..workload.tasks).map(|_| C::bounded::<T>(capacity, senders_per_channel)).unzip();
            let receiver = tokio::spawn(receive_merged::<C, T>(receivers, workload.merge, receiving));
            (senders, receiver)
        }
    };

    let senders = (sending_halves.into_iter().zip(sendings))
        .map(|(sender, sending)| match workload.send {
            SendMode::Wait => tokio::spawn(send_all::<C, T>(sender, sending, gate.clone())),
            SendMode::Try => tokio::spawn(try_send_all::<C, T>(sender, sending, gate.clone())),
        })
        .collect();
    Prepared { ready, participants: tasks + 1, go, senders, receiver, signal }
}

/// What one sending task sends, and how.
struct Sending {
    task: u32,
    count: u32,
    payloads: TaskPayloads,
    /// Stamps each message's send time, with `--latency`.
    clock: Option<RunClock>,
    pace: Option<Pace>,
    /// When the first burst is due after the gate opens ([`Workload::phase_offset`]).
    offset: Duration,
}

impl Sending {
    #[inline(always)]
    fn message<T: Item>(&self, seq: u32) -> T {
        let sent_at = self.clock.as_ref().map_or(0, RunClock::now);
        T::stamp(self.task, seq, sent_at, || self.payloads.get(seq))
    }
}

async fn send_all<C: Channel, T: Item>(mut sender: C::Sender<T>, sending: Sending, mut gate: StartGate) -> Sent {
    gate.wait().await;
    let mut pacer = sending.pace.map(|pace| Pacer::new(pace, sending.offset));
    // One loop and one call of the channel's send for both kinds of run: with a second call
    // site the compiler stopped inlining the send (callgrind: some 45 more instructions a
    // message for kanal); the price is one well-predicted branch a message.
    for seq in 0..sending.count {
        if let Some(pacer) = &mut pacer {
            pacer.before(seq).await;
        }
        if C::send(&mut sender, sending.message(seq)).await.is_err() {
            // The receiver is gone; it reports what it did not get.
            break;
        }
    }
    pacer.map_or_else(Sent::default, |pacer| pacer.sent)
}

/// `--send try`: as [`send_all`], with the crate's non-blocking send; a message that finds
/// the channel full is dropped and counted. A function of its own, so `send_all`'s loop
/// stays exactly what `--send wait` measured before.
async fn try_send_all<C: Channel, T: Item>(mut sender: C::Sender<T>, sending: Sending, mut gate: StartGate) -> Sent {
    gate.wait().await;
    let mut pacer = sending.pace.map(|pace| Pacer::new(pace, sending.offset));
    let (mut dropped, mut overflowed) = (0, 0);
    // The burst of the last drop: a burst counts as overflowed once, however many it lost.
    let mut last_overflowed = None;
    let burst = sending.pace.map_or(u32::MAX, |pace| pace.burst);
    for seq in 0..sending.count {
        if let Some(pacer) = &mut pacer {
            pacer.before(seq).await;
        }
        match C::try_send(&mut sender, sending.message(seq)) {
            Ok(()) => {}
            Err(TrySendError::Full) => {
                dropped += 1;
                if last_overflowed.replace(seq / burst) != Some(seq / burst) {
                    overflowed += 1;
                }
            }
            // The receiver is gone; it reports what it did not get.
            Err(TrySendError::Closed) => break,
        }
    }
    let sent = pacer.map_or_else(Sent::default, |pacer| pacer.sent);
    Sent { dropped, overflowed: if sent.frames > 0 { overflowed } else { 0 }, ..sent }
}

/// Holds a paced task to its schedule: a burst every interval.
struct Pacer {
    pace: Pace,
    ticker: tokio::time::Interval,
    /// When the first burst began.
    first: Option<Instant>,
    /// The bursts so far: their count, span and lateness.
    sent: Sent,
}

impl Pacer {
    /// A pacer whose first tick is due `offset` from now (zero under `--phase aligned`).
    fn new(pace: Pace, offset: Duration) -> Self {
        // Ticks are due at fixed times from the first (tokio's default `MissedTickBehavior::Burst`):
        // a task that falls behind catches up, so the offered load stays what was asked for.
        let ticker = tokio::time::interval_at(tokio::time::Instant::now() + offset, pace.interval);
        Self { pace, ticker, first: None, sent: Sent::default() }
    }

    /// Before message `seq`: at the start of a burst, waits for its tick and notes when it
    /// came and how late against the tick's scheduled time.
    async fn before(&mut self, seq: u32) {
        if seq.is_multiple_of(self.pace.burst) {
            let due = self.ticker.tick().await;
            let lateness = tokio::time::Instant::now().saturating_duration_since(due);
            self.sent.lateness_sum += lateness;
            self.sent.lateness_max = self.sent.lateness_max.max(lateness);
            let now = Instant::now();
            self.sent.span = now - *self.first.get_or_insert(now);
            // The intervals since the first burst: the bursts before this one.
            self.sent.intervals = self.sent.frames as u32;
            self.sent.frames += 1;
        }
    }
}
