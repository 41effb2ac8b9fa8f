//! The machine's slow stretches and fast rounds in one file's rows (`stats::machine` over the
//! readings taken before each sample, `machine_handoff_ns` and `machine_loop_ns`): which samples
//! they leave out of every figure, and what the file says of them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::CellKey;
use crate::results::schema::Record;
use crate::run::measure::RuntimeKind;
use crate::stats::disturbed::Why;
use crate::stats::machine::{Judged, busy, judge, waited};

/// How fast the machine was through one file's rounds, its slow stretches and its fast rounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MachineSpeed {
    /// The run's typical core-to-core round trip (`machine_handoff_ns`), nanoseconds; `None`
    /// without enough rounds read.
    pub handoff_ns: Option<f64>,
    /// The run's typical step of the one-thread loop (`machine_loop_ns`), nanoseconds.
    pub loop_ns: Option<f64>,
    /// Rounds read.
    pub rounds: usize,
    /// The slow rounds: a multi-thread round whose handoff, or a current-thread round whose
    /// loop, read above the run's limit (`stats::machine::Judged::limit`).
    pub slow_rounds: Vec<u64>,
    /// How many stretches the slow rounds make: slow rounds with no round read between them
    /// are one.
    pub stretches: usize,
    /// How much slower the samples of the slow rounds ran than their cells' kept samples: the
    /// median over them of each one's ns/message over its cell's median kept one. `None` where no
    /// such cell kept a sample.
    pub slower: Option<f64>,
    /// The fast rounds: a round whose reading, judged as for `slow_rounds`, was far below the
    /// run's typical one (`stats::machine::Judged::fast`). Absent from the JSON when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fast_rounds: Vec<u64>,
    /// How much faster the samples of the fast rounds ran than their cells' kept samples, as
    /// `slower` reads the slow ones (their cells' median kept one over each); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faster: Option<f64>,
    /// Samples left out of every figure as measured while the machine was slow or fast.
    pub samples: usize,
    /// The cells those samples are of.
    pub cells: usize,
    /// Of those cells, the ones measured again: with a sample kept from a round after their
    /// last slow or fast one.
    pub measured_again: usize,
    /// Whether the last round read was slow or fast: the machine is off its typical speed still,
    /// and a round measured again now would be lost too.
    #[serde(skip)]
    pub off_now: bool,
}

/// How long the benchmark's threads waited for a core, per runtime: each `ok` sample's share of
/// the time they were ready to run that they waited (`stats::machine::waited`), the pooled runs'
/// samples together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Waited(BTreeMap<RuntimeKind, Vec<f64>>);

impl Waited {
    /// The shares of `rows`' `ok` samples with both times, per runtime.
    pub(super) fn of(rows: &[Record]) -> Waited {
        let mut shares: BTreeMap<RuntimeKind, Vec<f64>> = BTreeMap::new();
        for row in rows.iter().filter(|row| row.status.is_ok()) {
            shares.entry(row.runtime).or_default().extend(waited(row.run_delay_ns, row.cpu_ns));
        }
        shares.retain(|_, shares| !shares.is_empty());
        Waited(shares)
    }

    /// `other`'s samples added, as a pool of runs holds them.
    pub fn extend(&mut self, other: Waited) {
        for (runtime, shares) in other.0 {
            self.0.entry(runtime).or_default().extend(shares);
        }
    }

    /// The median share of `runtime`'s samples, and whether the host was busy through them
    /// (`stats::machine::busy`); `None` without samples with both times.
    pub fn busy(&self, runtime: RuntimeKind) -> Option<(f64, bool)> {
        busy(self.0.get(&runtime)?)
    }
}

/// The two readings judged over every round of `rows`, and which rounds are slow or fast for
/// the runtime they measured.
pub(super) struct Off {
    handoff: Option<Judged>,
    looped: Option<Judged>,
    /// The slow rounds, in order.
    slow: BTreeSet<u64>,
    /// The fast rounds, in order.
    fast: BTreeSet<u64>,
    /// Every round read, in order.
    read: Vec<u64>,
}

/// Judges `rows`' readings and marks the `ok` rows of the slow rounds [`Why::MachineSlow`] and
/// of the fast ones [`Why::MachineFast`]; `None` when the file has too few rounds read
/// (`stats::machine::FEWEST_ROUNDS`), which every file without the readings has.
pub(super) fn off_rows(rows: &[Record], why: &mut [Option<Why>]) -> Option<Off> {
    let read = |reading: fn(&Record) -> Option<f64>| -> Vec<(u64, f64)> {
        rows.iter().filter_map(|row| Some((row.round?, reading(row)?))).collect()
    };
    let handoff = judge(&read(|row| row.machine_handoff_ns));
    let looped = judge(&read(|row| row.machine_loop_ns));
    if handoff.is_none() && looped.is_none() {
        return None;
    }
    let (mut slow, mut fast) = (BTreeSet::new(), BTreeSet::new());
    for (at, row) in rows.iter().enumerate() {
        let judged = if row.runtime == RuntimeKind::MultiThread { &handoff } else { &looped };
        let (Some(judged), Some(round)) = (judged, row.round) else { continue };
        let off = if judged.is_slow(round) {
            slow.insert(round);
            Why::MachineSlow
        } else if judged.is_fast(round) {
            fast.insert(round);
            Why::MachineFast
        } else {
            continue;
        };
        if row.status.is_ok() {
            why[at] = Some(off);
        }
    }
    let read: BTreeSet<u64> = [&handoff, &looped]
        .into_iter()
        .flatten()
        .flat_map(|judged| judged.rounds.iter().map(|(round, _)| *round))
        .collect();
    Some(Off { handoff, looped, slow, fast, read: read.into_iter().collect() })
}

impl Off {
    /// What the file says of the machine, `why` being every row's final verdict.
    pub(super) fn speed(&self, rows: &[Record], keys: &[CellKey], why: &[Option<Why>]) -> MachineSpeed {
        let mut kept: HashMap<&CellKey, Vec<(u64, f64)>> = HashMap::new();
        let mut hit: HashMap<&CellKey, Vec<(u64, f64, Why)>> = HashMap::new();
        for (at, row) in rows.iter().enumerate().filter(|(_, row)| row.status.is_ok()) {
            let round = row.round.unwrap_or(0);
            match why[at] {
                None => kept.entry(&keys[at]).or_default().push((round, row.ns_per_message)),
                Some(off @ (Why::MachineSlow | Why::MachineFast)) => {
                    hit.entry(&keys[at]).or_default().push((round, row.ns_per_message, off))
                }
                Some(_) => {}
            }
        }
        let (mut slower, mut faster): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut measured_again = 0;
        for (key, samples) in &hit {
            let Some(kept) = kept.get(key) else { continue };
            let median = crate::stats::median_of(&mut kept.iter().map(|(_, value)| *value).collect::<Vec<f64>>());
            for &(_, value, off) in samples {
                match off {
                    Why::MachineSlow => slower.push(value / median),
                    _ => faster.push(median / value),
                }
            }
            let last = samples.iter().map(|(round, _, _)| *round).max();
            measured_again += usize::from(kept.iter().any(|(round, _)| Some(*round) > last));
        }
        let slow = |round: &u64| self.slow.contains(round);
        let starts = self.read.windows(2).filter(|pair| !slow(&pair[0]) && slow(&pair[1])).count();
        let stretches = usize::from(self.read.first().is_some_and(slow)) + starts;
        MachineSpeed {
            handoff_ns: self.handoff.as_ref().map(|judged| judged.typical),
            loop_ns: self.looped.as_ref().map(|judged| judged.typical),
            rounds: self.read.len(),
            slow_rounds: self.slow.iter().copied().collect(),
            stretches,
            slower: crate::stats::median(&slower),
            fast_rounds: self.fast.iter().copied().collect(),
            faster: crate::stats::median(&faster),
            samples: hit.values().map(Vec::len).sum(),
            cells: hit.len(),
            measured_again,
            off_now: self.read.last().is_some_and(|round| slow(round) || self.fast.contains(round)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::of_rows;
    use crate::results::schema::SampleStatus;

    /// A row of `channel` on `runtime` in `round`: its ns/message and its readings.
    fn row(channel: &str, runtime: RuntimeKind, round: u64, ns: f64, (handoff, looped): (f64, Option<f64>)) -> Record {
        Record {
            channel: channel.to_owned(),
            runtime,
            tasks: 1,
            status: SampleStatus::Ok,
            round: Some(round),
            ns_per_message: ns,
            machine_handoff_ns: Some(handoff),
            machine_loop_ns: looped,
            ..Record::default()
        }
    }

    #[test]
    fn the_slow_rounds_of_each_runtime_are_left_out_and_said_with_their_cells_measured_again() {
        // Two multi-thread channels in rounds 1–8; the machine's handoff 3× in the `slow` rounds (a
        // stretch: three in a row),
        // where both ran twice as slow.
        let multi = |slow_rounds: std::ops::RangeInclusive<u64>| {
            let mut rows = Vec::new();
            for round in 1..=8 {
                let slow = if slow_rounds.contains(&round) { 2.0 } else { 1.0 };
                let handoff = if slow > 1.0 { 300.0 } else { 100.0 };
                rows.push(row("a", RuntimeKind::MultiThread, round, 50.0 * slow, (handoff, None)));
                rows.push(row("b", RuntimeKind::MultiThread, round, 80.0 * slow, (handoff + 2.0, None)));
            }
            rows
        };
        let mut rows = multi(3..=5);
        // A current-thread channel in rounds 9–14: the handoff slow in round 10, its loop not.
        for round in 9..=14 {
            let handoff = if round == 10 { 300.0 } else { 100.0 };
            rows.push(row("c", RuntimeKind::CurrentThread, round, 40.0, (handoff, Some(1.0))));
        }
        let file = of_rows(&rows);
        let machine = file.machine.clone().unwrap();
        assert_eq!(
            machine,
            MachineSpeed {
                handoff_ns: Some(100.0),
                loop_ns: Some(1.0),
                rounds: 14,
                slow_rounds: vec![3, 4, 5],
                stretches: 1,
                slower: Some(2.0),
                samples: 6,
                cells: 2,
                measured_again: 2,
                fast_rounds: Vec::new(),
                faster: None,
                off_now: false,
            }
        );
        let cell = |channel: &str| file.cells.iter().find(|(key, _)| key.channel == channel).unwrap().1;
        let a = cell("a");
        assert_eq!(
            (a.ok.len(), a.disturbed.clone(), a.disturbed_why.clone()),
            (5, vec![100.0; 3], vec![Why::MachineSlow; 3])
        );
        assert_eq!(cell("c").ok.len(), 6, "a current-thread round is judged by its loop");
        // A file without readings judges nothing.
        let bare: Vec<Record> =
            rows.iter().map(|r| Record { machine_handoff_ns: None, machine_loop_ns: None, ..r.clone() }).collect();
        assert_eq!(of_rows(&bare).machine, None);
        // Stopped in its slow stretch: the machine is slow now, and nothing was measured again.
        let cut = of_rows(&multi(6..=8)).machine.unwrap();
        assert!(cut.off_now, "{cut:?}");
        assert_eq!((cut.slow_rounds.clone(), cut.cells, cut.measured_again), (vec![6, 7, 8], 2, 0));
        assert_eq!(cut.stretches, 1, "a stretch to the last round is one");
    }

    #[test]
    fn the_fast_rounds_are_left_out_and_said_apart_from_the_slow_ones() {
        // Two multi-thread channels in rounds 1–14: the handoff at 40 ns in rounds 3–5, where
        // both ran twice as fast, and at 300 in rounds 9–11, where both ran twice as slow.
        let mut rows = Vec::new();
        for round in 1..=14 {
            let (handoff, speed) = match round {
                3..=5 => (40.0, 0.5),
                9..=11 => (300.0, 2.0),
                _ => (100.0, 1.0),
            };
            rows.push(row("a", RuntimeKind::MultiThread, round, 50.0 * speed, (handoff, None)));
            rows.push(row("b", RuntimeKind::MultiThread, round, 80.0 * speed, (handoff + 1.0, None)));
        }
        let file = of_rows(&rows);
        let machine = file.machine.clone().unwrap();
        assert_eq!((machine.slow_rounds.clone(), machine.slower), (vec![9, 10, 11], Some(2.0)));
        assert_eq!((machine.fast_rounds.clone(), machine.faster), (vec![3, 4, 5], Some(2.0)));
        assert_eq!((machine.samples, machine.cells, machine.measured_again, machine.off_now), (12, 2, 2, false));
        let a = file.cells.iter().find(|(key, _)| key.channel == "a").unwrap().1;
        assert_eq!(a.ok, [50.0; 8]);
        assert_eq!(a.disturbed_why, [[Why::MachineFast; 3], [Why::MachineSlow; 3]].concat());
        let json = serde_json::to_string(&MachineSpeed { fast_rounds: Vec::new(), faster: None, ..machine }).unwrap();
        assert!(!json.contains("fast"), "a run with no fast round writes the JSON it always did: {json}");
    }

    #[test]
    fn a_runtime_whose_samples_waited_for_a_core_a_tenth_of_their_time_ran_on_a_busy_host() {
        let waiting = |runtime, round, delay_ms: u64, cpu_ms: u64| Record {
            run_delay_ns: Some(delay_ms * 1_000_000),
            cpu_ns: Some(cpu_ms * 1_000_000),
            ..row("a", runtime, round, 50.0, (100.0, Some(1.0)))
        };
        let mut rows: Vec<Record> =
            (1..=3).map(|round| waiting(RuntimeKind::MultiThread, round, 100 * round, 200)).collect();
        rows.extend((4..=6).map(|round| waiting(RuntimeKind::CurrentThread, round, 1, 99)));
        // A failed sample counts for nothing, however long it waited.
        rows.push(Record {
            status: SampleStatus::Failed("timeout".to_owned()),
            ..waiting(RuntimeKind::CurrentThread, 7, 900, 100)
        });
        let file = of_rows(&rows);
        // Multi-thread: 100/300, 200/400, 300/500 of their ready time waiting; the median is a half.
        assert_eq!(file.waited.busy(RuntimeKind::MultiThread), Some((0.5, true)));
        assert_eq!(file.waited.busy(RuntimeKind::CurrentThread), Some((0.01, false)));
        let mut pooled = file.waited.clone();
        pooled.extend(of_rows(&rows[3..6]).waited);
        assert_eq!(pooled.busy(RuntimeKind::CurrentThread), Some((0.01, false)), "the runs' samples together");
        assert_eq!(
            of_rows(&[row("a", RuntimeKind::MultiThread, 1, 50.0, (100.0, None))])
                .waited
                .busy(RuntimeKind::MultiThread),
            None
        );
    }

    #[test]
    fn a_sample_kept_from_its_cores_on_a_host_not_busy_throughout_is_left_out_as_waited() {
        let waiting = |channel: &str, round, delay_ms: u64| Record {
            run_delay_ns: Some(delay_ms * 1_000_000),
            cpu_ns: Some(100_000_000),
            ..row(channel, RuntimeKind::MultiThread, round, 50.0, (100.0, None))
        };
        // Two of channel a's three samples waited 40 and 45 ms of their 140 and 145 ms ready, too
        // many of its cell for its own checks to single out; channel b's five and the rest did not.
        let mut rows: Vec<Record> =
            [40, 2, 45].iter().zip(1..).map(|(&delay, round)| waiting("a", round, delay)).collect();
        rows.extend([1, 2, 0, 3, 1].iter().zip(1..).map(|(&delay, round)| waiting("b", round, delay)));
        let file = of_rows(&rows);
        let cell = |channel: &str| file.cells.iter().find(|(key, _)| key.channel == channel).unwrap().1.clone();
        assert_eq!((cell("a").ok.len(), cell("a").disturbed_why), (1, vec![Why::Waited; 2]));
        assert_eq!(cell("b").ok.len(), 5);
        // Every sample waited so: a busy host, whose figures are its own, and none is left out.
        let busy: Vec<Record> = (1..=5).map(|round| waiting("a", round, 40)).collect();
        assert_eq!(of_rows(&busy).cells.into_values().next().unwrap().ok.len(), 5);
    }

    #[test]
    fn an_ab_runs_builds_keep_the_slow_rounds_that_slow_both_alike() {
        let mut rows = Vec::new();
        for round in 1..=8 {
            let handoff = if (3..=5).contains(&round) { 300.0 } else { 100.0 };
            for build in ["baseline", "candidate"] {
                let row = row("a", RuntimeKind::MultiThread, round, 50.0, (handoff, None));
                rows.push(Record { build: build.to_owned(), ..row });
            }
        }
        let alone = of_rows(&rows[..].iter().filter(|row| row.build == "candidate").cloned().collect::<Vec<_>>());
        assert_eq!(alone.cells.values().next().unwrap().ok.len(), 5, "a run's own slow rounds are left out");
        for build in crate::results::load::builds_of(&rows, ["baseline", "candidate"], false) {
            assert_eq!(build.cells.values().next().unwrap().ok.len(), 8, "each build keeps every round");
            assert_eq!(build.machine.unwrap().slow_rounds, vec![3, 4, 5], "and still reads the machine");
        }
    }
}
