//! The receiving task: what it checks, records and writes for every message, and its loops,
//! one over a channel's receiver (cloned-send) and one over the merged receivers (merged-recv).

use std::sync::Arc;
use std::time::Instant;

use futures::{FutureExt, Stream, StreamExt};
use futures_buffered::MergeBounded;
use tokio_stream::StreamMap;

use super::{Delivery, StartGate};
use crate::channel::{Channel, Item};
use crate::run::latency::{LatencyRecorder, RunClock};
use crate::run::sink::SinkWriter;
use crate::run::slow::Slowdown;
use crate::run::stop::{Signal, until};
use crate::run::verify::{Status, Verifier};
use crate::run::workload::Merge;

/// The receiving task's run: waits at the gate, then runs `$take` (a receive loop over
/// `$receiving`) until it ends or the run's bound stops it; a loop stopped having taken nothing
/// runs on to its end ([`Receiving::stopping`]). Evaluates to `$receiving`.
macro_rules! receive {
    ($receiving:ident, $take:expr) => {{
        let opened = $receiving.gate.wait().await;
        $receiving.slow.start(opened);
        let signal = $receiving.signal.clone();
        let stopped = until(&signal, $take).await;
        if $receiving.stopping(stopped) {
            $take.await;
        }
        $receiving
    }};
}

/// The receiving task's state: what it checks, records and writes for every message.
#[derive(Debug)]
pub(super) struct Receiving {
    pub(super) gate: StartGate,
    pub(super) verifier: Verifier,
    pub(super) expected_bytes: u64,
    pub(super) bytes: u64,
    pub(super) latency: Option<LatencyRecorder>,
    /// The sink's writer, if any; `Err` saying why its file could not be opened.
    pub(super) sink: Result<Option<SinkWriter>, String>,
    pub(super) slow: Slowdown,
    /// Set when the run is to stop before its last message.
    pub(super) signal: Arc<Signal>,
    /// When the receiver stopped at the signal.
    pub(super) stopped: Option<Instant>,
    /// Records whose body arrived other than stamped ([`Item::intact`]).
    pub(super) torn: u64,
    /// The most messages taken per wake-up (`Workload::batch`).
    pub(super) batch: usize,
    /// The clock the receiver spins on after each batch, and for how many nanoseconds
    /// (`Workload::work_per_batch`).
    pub(super) work: Option<(RunClock, u64)>,
}

impl Receiving {
    // Forced: the receive loops are the hot path, and left to itself the compiler calls this.
    #[inline(always)]
    fn take<T: Item>(&mut self, message: T) {
        self.verifier.observe(message.sender(), message.seq());
        self.bytes += message.body().len() as u64;
        self.torn += u64::from(!message.intact());
        if let Some(latency) = &mut self.latency {
            latency.record(message.sent_at());
        }
        if let Ok(Some(sink)) = &mut self.sink {
            sink.write(message.body());
        }
    }

    /// Whether the receive loop, `stopped` at the run's bound or not, must run on: when it
    /// was stopped having taken nothing (a hang, or a channel not started yet), it is not a
    /// bounded sample, and runs on to its end or the watchdog's timeout. Otherwise notes when it stopped.
    fn stopping(&mut self, stopped: bool) -> bool {
        if stopped && self.verifier.received() == 0 {
            return true;
        }
        self.stopped = stopped.then(Instant::now);
        false
    }

    /// Takes each message of a batch, in the order received, leaving `batch` empty; then does
    /// the receiver's own work on it, if any.
    fn take_batch<T: Item>(&mut self, batch: &mut Vec<T>) {
        for message in batch.drain(..) {
            self.take(message);
        }
        if let Some((clock, nanos)) = &self.work {
            clock.spin(*nanos);
        }
    }

    /// Whether the receiver takes one message per wake-up and does no work: a default run's loop.
    fn one_by_one(&self) -> bool {
        self.batch == 1 && self.work.is_none()
    }

    /// The verdict, once the senders have said how many messages they `dropped`; of a receiver
    /// stopped at its bound, what arrived, checked (`Verifier::finish_stopped`), the bytes and the
    /// sink's file being those of what arrived.
    pub(super) fn finish(self, dropped: u64) -> Delivery {
        let stopped = self.stopped.map(|at| (at, self.verifier.received()));
        let mut status = match stopped {
            Some(_) => self.verifier.finish_stopped(),
            None => self.verifier.finish(dropped),
        };
        if status.is_ok() && self.torn > 0 {
            status = Status::Corrupted(format!("{} records arrived with a body other than sent", self.torn));
        }
        // Dropped messages take their bytes with them; the sequence check above stands for both.
        if status.is_ok() && stopped.is_none() && dropped == 0 && self.bytes != self.expected_bytes {
            status =
                Status::Corrupted(format!("{} payload bytes arrived, {} were sent", self.bytes, self.expected_bytes));
        }
        let sunk = self.sink.and_then(|sink| sink.map_or(Ok(()), SinkWriter::finish));
        if let (true, Err(error)) = (status.is_ok(), sunk) {
            status = Status::Sink(error);
        }
        Delivery { status, bytes: self.bytes, latency: self.latency, dropped, stopped, ..Delivery::default() }
    }
}

pub(super) async fn receive_one<C: Channel, T: Item>(
    mut receiver: C::Receiver<T>,
    mut receiving: Receiving,
) -> Receiving {
    receive!(receiving, take_one::<C, T>(&mut receiver, &mut receiving))
}

/// Takes every message `receiver` delivers: one by one (a batch of 1, no work) with `take_each`,
/// else up to `batch` per wake-up with [`Channel::recv_batch`], each batch then worked on.
async fn take_one<C: Channel, T: Item>(receiver: &mut C::Receiver<T>, receiving: &mut Receiving) {
    if receiving.one_by_one() {
        return take_each::<C, T>(receiver, receiving).await;
    }
    let batch = receiving.batch;
    let mut taken = Vec::with_capacity(batch);
    while C::recv_batch(receiver, &mut taken, batch).await {
        receiving.take_batch(&mut taken);
    }
    receiving.slow.finish().await;
}

/// Takes every message `receiver` delivers, until its senders are gone.
async fn take_each<C: Channel, T: Item>(receiver: &mut C::Receiver<T>, receiving: &mut Receiving) {
    while let Some(message) = C::recv(receiver).await {
        receiving.take(message);
    }
    receiving.slow.finish().await;
}

pub(super) async fn receive_merged<C: Channel, T: Item>(
    mut receivers: Vec<C::Receiver<T>>,
    merge: Merge,
    receiving: Receiving,
) -> Receiving {
    match merge {
        Merge::FuturesBuffered => {
            let merged: MergeBounded<_> = receivers.iter_mut().map(C::stream::<T>).collect();
            drain(merged, receiving).await
        }
        Merge::SelectAll => {
            let merged =
                futures::stream::select_all(receivers.iter_mut().map(|receiver| Box::pin(C::stream(receiver))));
            drain(merged, receiving).await
        }
        Merge::StreamMap => {
            let merged: StreamMap<_, _> =
                receivers.iter_mut().map(|receiver| Box::pin(C::stream(receiver))).enumerate().collect();
            drain(merged.map(|(_, message)| message), receiving).await
        }
    }
}

async fn drain<T: Item>(mut merged: impl Stream<Item = T> + Unpin, mut receiving: Receiving) -> Receiving {
    receive!(receiving, take_merged_batches(&mut merged, &mut receiving))
}

/// Takes every message of the merged receivers: one by one (a batch of 1, no work) with
/// `take_merged`, else up to `batch` per wake-up, the awaited message and what the stream has
/// ready, each batch then worked on. A `next` polled once
/// and dropped loses nothing, whatever the channel: the stream keeps its state.
async fn take_merged_batches<T: Item>(merged: &mut (impl Stream<Item = T> + Unpin), receiving: &mut Receiving) {
    if receiving.one_by_one() {
        return take_merged(merged, receiving).await;
    }
    let batch = receiving.batch;
    let (mut merged, mut taken) = (merged.fuse(), Vec::with_capacity(batch));
    while let Some(first) = merged.next().await {
        taken.push(first);
        while taken.len() < batch
            && let Some(Some(message)) = merged.next().now_or_never()
        {
            taken.push(message);
        }
        receiving.take_batch(&mut taken);
    }
    receiving.slow.finish().await;
}

/// Takes every message of the merged receivers, until all their senders are gone.
async fn take_merged<T: Item>(merged: &mut (impl Stream<Item = T> + Unpin), receiving: &mut Receiving) {
    while let Some(message) = merged.next().await {
        receiving.take(message);
    }
    receiving.slow.finish().await;
}
