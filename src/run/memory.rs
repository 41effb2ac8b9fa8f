//! What a channel keeps in memory: the heap bytes its instances hold, counted by the allocator
//! ([`super::allocs::LIVE`]), at four moments of one burst.
//!
//! One cell is driven on the calling thread, each send and receive polled once (as
//! [`crate::channel::probe_capacity`] does), so the figures are a function of the crate's code
//! and the cell, not of a scheduler: every sender sends, in turn, until each one's send would
//! wait (the buffer full, the receiver waiting), then the receiver takes everything, each
//! sender's messages checked to arrive once and in order. The harness allocates nothing while
//! the window is open: its vectors are reserved before, a record's body lies in the channel's
//! slot, and a shared message's payload is a static buffer (a handle, no allocation per
//! message); what is counted is the channels' own heap and nothing else. The allocator counts
//! the whole process, so nothing else may run meanwhile: the caller measures one cell at a time
//! and starts no other thread.

use bytes::Bytes;
use futures::FutureExt;

use super::allocs::{self, LIVE};
use super::payload::DEFAULT_PAYLOAD_BYTES;
use super::verify::{Status, Verifier};
use super::workload::{Mode, RecordBytes, Workload};
use crate::channel::{Channel, Item};

/// One cell of `channel-bench memory`: the design, its tasks, the capacity asked and the kind
/// of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MemoryCell {
    /// One shared channel (cloned-send) or one per task (merged-recv).
    pub mode: Mode,
    /// Sending tasks: the senders, each its own handle.
    pub tasks: usize,
    /// Slots asked for: the one channel's in cloned-send, shared among the tasks' channels in
    /// merged-recv as a sweep shares them ([`Workload::capacity_per_channel`]).
    pub capacity: usize,
    /// What a message is.
    pub record: RecordBytes,
}

impl MemoryCell {
    /// The cell as a sweep's workload shapes it (capacity per channel, senders per channel).
    pub fn workload(&self) -> Workload {
        Workload { record: self.record, ..Workload::new(self.mode, self.tasks, self.tasks as u64, self.capacity) }
    }

    /// Channel instances: one in cloned-send, one per task in merged-recv.
    pub fn channels(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => 1,
            Mode::MergedRecv => self.tasks,
        }
    }

    /// Slots held by every instance together.
    pub fn slots(&self) -> usize {
        self.workload().capacity_per_channel() * self.channels()
    }
}

/// The heap bytes a cell's channels held, all instances together, at each moment, counted from
/// just before the first was made; and whether the burst was delivered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Footprint {
    /// Made, every sender cloned, nothing sent: at rest.
    pub rest: i64,
    /// The most at any moment from creation until the burst was drained.
    pub peak: i64,
    /// Once the burst was drained.
    pub drained: i64,
    /// After one more message per channel, sent and received: what the channel keeps once
    /// idle again.
    pub kept: i64,
    /// After every sender and receiver was dropped: 0 unless a crate keeps memory past its
    /// channels (a cache of its own).
    pub after_drop: i64,
    /// Messages the buffers took in the burst: the slots held, when the channel is exact.
    pub burst: u64,
    /// Whether every message arrived once, in order per sender, intact, and the burst filled
    /// exactly the slots asked for.
    pub status: Status,
}

/// What `registry::ChannelEntry::memory` is: [`memory`] for one channel.
pub type Memory = fn(&MemoryCell) -> Footprint;

/// Measures `cell` over channel `C`.
pub fn memory<C: Channel>(cell: &MemoryCell) -> Footprint {
    by_record!(cell.record, footprint::<C>(cell))
}

/// The payload every shared message points to: static, so a message costs no allocation.
static PAYLOAD: [u8; DEFAULT_PAYLOAD_BYTES] = [0; DEFAULT_PAYLOAD_BYTES];

/// The channels of a cell and the harness's bookkeeping, every vector reserved before the window opens.
struct Bench<C: Channel, T: Item> {
    senders: Vec<C::Sender<T>>,
    receivers: Vec<C::Receiver<T>>,
    /// Messages each sender has had accepted.
    sent: Vec<u32>,
}

impl<C: Channel, T: Item> Bench<C, T> {
    /// One message from each of the first `senders` senders in turn, each send polled once; the
    /// messages accepted.
    fn offer(&mut self, senders: usize) -> u64 {
        let mut accepted = 0;
        for (task, sender) in self.senders.iter_mut().enumerate().take(senders) {
            if let Some(Ok(())) = C::send(sender, stamp(task, self.sent[task])).now_or_never() {
                self.sent[task] += 1;
                accepted += 1;
            }
        }
        accepted
    }

    /// Round after round, one message from each sender in turn, until no sender's is accepted
    /// (each one's send would wait) or `limit` were (a channel that never fills); the messages accepted.
    fn fill(&mut self, limit: u64) -> u64 {
        let mut accepted = 0;
        while accepted < limit {
            match self.offer(self.senders.len()) {
                0 => break,
                sent => accepted += sent,
            }
        }
        accepted
    }

    /// Everything queued, from every receiver, checked by `verifier`; the torn records.
    fn drain(&mut self, verifier: &mut Verifier) -> u64 {
        let mut torn = 0;
        for receiver in &mut self.receivers {
            while let Some(Some(message)) = C::recv(receiver).now_or_never() {
                verifier.observe(message.sender(), message.seq());
                torn += u64::from(!message.intact());
            }
        }
        torn
    }
}

/// Message `seq` of sender `task`.
fn stamp<T: Item>(task: usize, seq: u32) -> T {
    T::stamp(task as u32, seq, 0, || Bytes::from_static(&PAYLOAD))
}

/// Measures `cell` over channels of `C` carrying `T`.
fn footprint<C: Channel, T: Item>(cell: &MemoryCell) -> Footprint {
    let workload = cell.workload();
    let (per_channel, senders_per_channel) = (workload.capacity_per_channel(), workload.senders_per_channel());
    let mut bench = Bench::<C, T> {
        senders: Vec::with_capacity(cell.tasks),
        receivers: Vec::with_capacity(cell.channels()),
        sent: vec![0; cell.tasks],
    };
    // A channel that never fills stops well past what it should hold.
    let limit = 2 * cell.slots() as u64 + cell.tasks as u64 + 16;
    LIVE.reset();
    allocs::set_window(allocs::LIVE_BYTES, true);
    for _ in 0..cell.channels() {
        let (sender, receiver) = C::bounded::<T>(per_channel, senders_per_channel);
        bench.receivers.push(receiver);
        bench.senders.extend(std::iter::repeat_n(sender, senders_per_channel));
    }
    let rest = LIVE.now();
    LIVE.reset_peak();
    let burst = bench.fill(limit);
    // The verifier is the harness's: made outside the window, and freed outside it.
    allocs::set_window(allocs::LIVE_BYTES, false);
    // One more message per channel: sender 0's in cloned-send, every sender's in merged-recv.
    let mut expected = bench.sent.clone();
    expected.iter_mut().take(cell.channels()).for_each(|count| *count += 1);
    let mut verifier = Verifier::new(expected, false);
    allocs::set_window(allocs::LIVE_BYTES, true);
    let mut torn = bench.drain(&mut verifier);
    let (peak, drained) = (LIVE.peak(), LIVE.now());
    bench.offer(cell.channels());
    torn += bench.drain(&mut verifier);
    let kept = LIVE.now();
    // The handles are dropped in the window, the vectors that held them (the harness's) after it.
    bench.senders.clear();
    bench.receivers.clear();
    let after_drop = LIVE.now();
    allocs::set_window(allocs::LIVE_BYTES, false);
    drop(bench);
    let status = match verifier.finish(0) {
        _ if burst != cell.slots() as u64 => Status::Capacity(format!(
            "the burst filled {burst} slots, not the {} asked for (a full channel takes no more)",
            cell.slots()
        )),
        Status::Ok if torn > 0 => Status::Corrupted(format!("{torn} records arrived torn")),
        status => status,
    };
    Footprint { rest, peak, drained, kept, after_drop, burst, status }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::adapters::{Kanal, TokioMpsc};

    fn cell(mode: Mode, tasks: usize, capacity: usize) -> MemoryCell {
        MemoryCell { mode, tasks, capacity, record: RecordBytes::B48 }
    }

    #[test]
    fn a_cell_holds_its_capacity_once_per_instance() {
        assert_eq!((cell(Mode::ClonedSend, 64, 1024).channels(), cell(Mode::ClonedSend, 64, 1024).slots()), (1, 1024));
        // 1,024 ÷ 512 is below a task's 16 slots at least.
        assert_eq!(cell(Mode::MergedRecv, 512, 1024).slots(), 512 * 16);
        assert_eq!(cell(Mode::MergedRecv, 4, 1024).slots(), 1024);
    }

    #[test]
    fn a_burst_fills_every_slot_and_arrives_in_order() {
        // The test binary counts no bytes (it installs no counting allocator): this checks the drive.
        for mode in Mode::ALL {
            for footprint in [memory::<TokioMpsc>(&cell(mode, 3, 96)), memory::<Kanal>(&cell(mode, 3, 96))] {
                assert_eq!(footprint.status, Status::Ok, "{mode}");
                assert_eq!(footprint.burst, 96, "{mode}");
            }
        }
    }
}
