//! Slow stretches of the machine: the rounds of a run in which the machine's reading
//! (`run::reading`, taken right before each sample, whatever the channel) was above the run's
//! own typical reading by more than the reading's noise. On a shared VM whole stretches of a run
//! are 2–2.5× slower for every channel at once while nothing the process sees of its own
//! threads shows it; the reading does. A round is judged as a whole (the median of its samples'
//! readings), so that the rounds left out take every channel of theirs with them and the rounds
//! kept still pair. A stretch of rounds far faster than the run's usual reading is off it too:
//! the VM's cores closer for a while, every channel faster with them, and a figure that the
//! run's other rounds, and the next run, do not repeat.

use std::collections::BTreeMap;

/// A round is slow when its reading is at least this many times the run's typical reading,
/// however tight the readings are: a calm 2-core VM's rounds read within 1.3× of each other.
pub const SLOW_FACTOR: f64 = 1.4;
/// How many robust standard deviations (of the logarithm of the fast half's readings) above
/// the typical reading a slow round's is, at least: on a host whose readings spread wider than
/// [`SLOW_FACTOR`] allows for, the limit widens with them.
pub const SPREAD_Z: f64 = 4.0;
/// A round is fast when the run's typical reading is at least this many times its reading: far
/// past the spread of a calm VM's rounds and of a debug build's loop under load
/// (docs/methodology.md, "Fast rounds"), so that only another state of the machine reads so.
pub const FAST_FACTOR: f64 = 2.0;
/// The fewest rounds read before any is judged: with fewer, the run's typical reading is not
/// known.
pub const FEWEST_ROUNDS: usize = 6;
/// The fewest slow (or fast) rounds in a row that make a stretch: the machine slowing for a
/// while, not one round that other work on the host held up (the per-sample checks of
/// `stats::disturbed` and the paired verdicts take care of those).
pub const FEWEST_IN_A_STRETCH: usize = 3;

/// The verdict on one kind of reading over a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The run's typical reading: the median of its faster half of rounds (a slow stretch only
    /// moves the slow half, even when it is most of the run; a fast one, while it is under a
    /// quarter of the run, only the fastest rounds of that half).
    pub typical: f64,
    /// The reading above which a round is slow: `typical` times [`SLOW_FACTOR`], or
    /// [`SPREAD_Z`] robust standard deviations of the fast half above it when that is more.
    pub limit: f64,
    /// Every round read, in order, with its reading (the median of its samples').
    pub rounds: Vec<(u64, f64)>,
    /// The slow rounds in order, grouped into stretches: rounds that follow each other among
    /// the rounds read (none read between them) are one stretch, and only a stretch of
    /// [`FEWEST_IN_A_STRETCH`] rounds or more counts.
    pub stretches: Vec<Vec<u64>>,
    /// The fast rounds in order: those whose reading is `typical` over [`FAST_FACTOR`] or less,
    /// [`FEWEST_IN_A_STRETCH`] or more in a row (the machine in another state for a while, as a
    /// slow stretch is).
    pub fast: Vec<u64>,
}

impl Judged {
    /// Whether round `round` is slow.
    pub fn is_slow(&self, round: u64) -> bool {
        self.stretches.iter().any(|stretch| stretch.contains(&round))
    }

    /// Whether round `round` is fast.
    pub fn is_fast(&self, round: u64) -> bool {
        self.fast.contains(&round)
    }

    /// How many rounds are slow.
    pub fn slow_rounds(&self) -> usize {
        self.stretches.iter().map(Vec::len).sum()
    }

    /// The median over the slow rounds of their reading over the typical one; `None` when no
    /// round is slow.
    pub fn factor(&self) -> Option<f64> {
        let ratios: Vec<f64> =
            self.rounds.iter().filter(|(round, _)| self.is_slow(*round)).map(|(_, r)| r / self.typical).collect();
        super::median(&ratios)
    }
}

/// Judges `readings` (each sample's round and reading, any order; readings that are not
/// positive numbers are ignored): each round's reading is the median of its samples'; the
/// typical reading is the median of the faster half of the rounds (those at or below their
/// median); a round whose reading is above [`Judged::limit`] is slow, one [`FAST_FACTOR`] times
/// below the typical reading fast, each in a stretch of [`FEWEST_IN_A_STRETCH`] rounds or more.
/// `None` with fewer than [`FEWEST_ROUNDS`] rounds read.
pub fn judge(readings: &[(u64, f64)]) -> Option<Judged> {
    let mut by_round: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for &(round, reading) in readings.iter().filter(|(_, reading)| *reading > 0.0 && reading.is_finite()) {
        by_round.entry(round).or_default().push(reading);
    }
    if by_round.len() < FEWEST_ROUNDS {
        return None;
    }
    let rounds: Vec<(u64, f64)> =
        by_round.into_iter().map(|(round, mut values)| (round, super::median_of(&mut values))).collect();
    let mut sorted: Vec<f64> = rounds.iter().map(|(_, reading)| *reading).collect();
    sorted.sort_by(f64::total_cmp);
    let faster_half = &sorted[..sorted.len().div_ceil(2)];
    let typical = super::median_of(&mut faster_half.to_vec());
    let mut deviations: Vec<f64> = faster_half.iter().map(|reading| (reading / typical).ln().abs()).collect();
    let spread = 1.4826 * super::median_of(&mut deviations);
    let limit = typical * SLOW_FACTOR.max((SPREAD_Z * spread).exp());
    let stretches = stretches_where(&rounds, |reading| reading > limit);
    let fast = stretches_where(&rounds, |reading| reading * FAST_FACTOR <= typical).concat();
    Some(Judged { typical, limit, rounds, stretches, fast })
}

/// The stretches of `rounds` (each a round and its reading, in order) whose every reading is
/// `off`, [`FEWEST_IN_A_STRETCH`] rounds or more each: their rounds, in order.
fn stretches_where(rounds: &[(u64, f64)], off: impl Fn(f64) -> bool) -> Vec<Vec<u64>> {
    rounds
        .chunk_by(|(_, a), (_, b)| off(*a) == off(*b))
        .filter(|run| off(run[0].1) && run.len() >= FEWEST_IN_A_STRETCH)
        .map(|run| run.iter().map(|(round, _)| *round).collect())
        .collect()
}

/// The share of the time a sample's threads were ready to run that they spent waiting for a
/// core: its run delay over its run delay plus its CPU time. A free host gives its threads a
/// core at once (a share near 0); a host whose other work keeps every core busy makes them wait
/// (a share near one half when that work takes half the cores' time). `None` without either
/// time, or with neither above 0.
pub fn waited(run_delay_ns: Option<u64>, cpu_ns: Option<u64>) -> Option<f64> {
    let (delay, cpu) = (run_delay_ns? as f64, cpu_ns? as f64);
    (delay + cpu > 0.0).then(|| delay / (delay + cpu))
}

/// The median [`waited`] share of a runtime's samples at and above which the host was busy
/// through the run: its samples' threads waited for a core that share of the time they were
/// ready, every sample alike, which no sample's own checks (`stats::disturbed`, against its
/// cell's others) can see.
pub const BUSY_SHARE: f64 = 0.1;

/// The median of `shares` ([`waited`]), and whether it is [`BUSY_SHARE`] or more; `None`
/// without any.
pub fn busy(shares: &[f64]) -> Option<(f64, bool)> {
    super::median(shares).map(|median| (median, median >= BUSY_SHARE))
}

/// For each of a runtime's samples, by its run delay and CPU time (nanoseconds, `None` where not
/// recorded), whether something kept that sample's own threads from their cores: its
/// [`waited`] share is [`BUSY_SHARE`] or more, and its run delay at least one scheduler tick
/// (`super::disturbed::RUN_DELAY_FLOOR_NS`: a sample of a few milliseconds waits that share for
/// a tick of the host's ordinary work), while the median of the shares is below
/// [`BUSY_SHARE`]. On a host busy through the run ([`busy`]) every sample waited alike, and
/// none is singled out; on one that was not, a sample that waited that long ran while another
/// program held a core, and measured how its channel shares a core with it rather than how it
/// hands a message over (on two cores such a sample of a multi-thread cell can read two to
/// three times faster or slower than its cell's others).
pub fn kept_waiting(samples: &[(Option<u64>, Option<u64>)]) -> Vec<bool> {
    let shares: Vec<Option<f64>> = samples.iter().map(|&(delay, cpu)| waited(delay, cpu)).collect();
    let free = busy(&shares.iter().flatten().copied().collect::<Vec<f64>>()).is_some_and(|(_, busy)| !busy);
    let long = |delay: Option<u64>| delay.is_some_and(|delay| delay as f64 >= super::disturbed::RUN_DELAY_FLOOR_NS);
    (samples.iter().zip(shares))
        .map(|(&(delay, _), share)| free && long(delay) && share.is_some_and(|share| share >= BUSY_SHARE))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds 1 to `count`, two samples each, reading `base(round)` and 2 ns more.
    fn run(count: u64, base: impl Fn(u64) -> f64) -> Vec<(u64, f64)> {
        (1..=count).flat_map(|round| [(round, base(round)), (round, base(round) + 2.0)]).collect()
    }

    #[test]
    fn a_calm_run_has_no_slow_round() {
        let wobble = |round: u64| 100.0 + (round * 37 % 11) as f64 * 2.0;
        let judged = judge(&run(20, wobble)).unwrap();
        assert_eq!(judged.rounds.len(), 20);
        assert!(judged.stretches.is_empty(), "{judged:?}");
        assert_eq!(judged.factor(), None);
    }

    #[test]
    fn two_stretches_are_found_with_their_typical_limit_and_factor() {
        // 20 rounds at 101 ns (two samples, 100 and 102), rounds 4–6 and 14–16 at 250 (2.5×),
        // round 10 alone: one slow round is no stretch.
        let slow = |round: u64| (4..=6).contains(&round) || (14..=16).contains(&round) || round == 10;
        let base = |round: u64| if slow(round) { 249.0 } else { 100.0 };
        let judged = judge(&run(20, base)).unwrap();
        assert_eq!(judged.typical, 101.0);
        assert_eq!(judged.limit, 101.0 * SLOW_FACTOR, "the readings agree: the factor's floor");
        assert_eq!(judged.stretches, [vec![4, 5, 6], vec![14, 15, 16]]);
        assert_eq!(judged.slow_rounds(), 6);
        assert!(judged.is_slow(5) && !judged.is_slow(7) && !judged.is_slow(10));
        assert_eq!(judged.factor(), Some(250.0 / 101.0));
    }

    #[test]
    fn a_run_slow_most_of_the_time_is_judged_against_its_fast_rounds() {
        // Rounds 1–13 of 20 at 3× (as the run whose rounds 1–21 and 35–55 of 55 were slow): the
        // fast half of the rounds is 7 fast and 3 slow ones, its median a fast one.
        let judged = judge(&run(20, |round| if round <= 13 { 299.0 } else { 99.0 })).unwrap();
        assert_eq!((judged.typical, judged.limit), (100.0, 100.0 * SLOW_FACTOR));
        assert_eq!(judged.stretches, [(1..=13).collect::<Vec<u64>>()]);
        assert_eq!(judged.factor(), Some(3.0));
        // Slow in 16 of 20 rounds, the slow speed is the run's typical one: nothing is slow.
        let judged = judge(&run(20, |round| if round <= 16 { 299.0 } else { 99.0 })).unwrap();
        assert_eq!(judged.typical, 300.0);
        assert!(judged.stretches.is_empty());
        assert_eq!(judged.fast, [17, 18, 19, 20], "the fast speed is off the run's typical one then");
    }

    #[test]
    fn a_round_reading_half_the_typical_or_less_is_fast_and_none_of_the_slow_rules_concern() {
        // 38 rounds at 151 ns a round trip, rounds 21–24 at 41 (as the VM's cores were for a
        // while beside the neighbour), rounds 30–32 at 76, just over half, and rounds 34–35 at 41,
        // two in a row; rounds 5–7 slow at 3×.
        let reading = |round: u64| match round {
            21..=24 | 34 | 35 => 40.0,
            30..=32 => 75.0,
            5..=7 => 449.0,
            _ => 150.0,
        };
        let judged = judge(&run(38, reading)).unwrap();
        assert_eq!(judged.typical, 151.0);
        assert_eq!(judged.fast, [21, 22, 23, 24], "no stretch of two rounds, none just over half");
        assert_eq!(judged.stretches, [vec![5, 6, 7]]);
        assert!(judged.is_fast(22) && !judged.is_fast(30) && !judged.is_fast(34) && !judged.is_slow(22));
        assert_eq!(judged.factor(), Some(450.0 / 151.0), "the slow rounds' factor alone");
        assert!(judge(&run(20, |round| 100.0 + (round * 37 % 11) as f64 * 2.0)).unwrap().fast.is_empty());
    }

    #[test]
    fn a_wide_spread_widens_the_limit_and_one_slow_sample_does_not_make_a_slow_round() {
        // Rounds read 101, 116, 131 and 146 in turn: the fast half's spread is wider than the
        // factor's floor allows for.
        let spread = |round: u64| 100.0 + 15.0 * (round % 4) as f64;
        let mut readings = run(12, spread);
        let judged = judge(&readings).unwrap();
        assert_eq!(judged.typical, 108.5);
        let deviation = 1.4826 * ((108.5f64 / 101.0).ln() + (116.0f64 / 108.5).ln()) / 2.0;
        assert!((judged.limit - 108.5 * (SPREAD_Z * deviation).exp()).abs() < 1e-9, "{judged:?}");
        assert!(judged.limit > 108.5 * SLOW_FACTOR);
        assert!(judged.stretches.is_empty());
        // A third sample of round 3 reading 10× is outvoted by the round's other two.
        readings.push((3, 1450.0));
        assert!(judge(&readings).unwrap().stretches.is_empty());
    }

    #[test]
    fn too_few_rounds_or_readings_that_are_not_numbers_judge_nothing() {
        assert_eq!(judge(&run(5, |_| 100.0)), None);
        let mut readings = run(6, |_| 100.0);
        readings[0].1 = f64::NAN;
        readings[1].1 = 0.0;
        assert_eq!(judge(&readings), None, "round 1 has no reading left");
        assert_eq!(judge(&[]), None);
    }

    #[test]
    fn a_host_is_busy_when_its_threads_wait_for_a_core_a_tenth_of_their_ready_time() {
        assert_eq!(waited(Some(1_000), Some(3_000)), Some(0.25));
        assert_eq!(waited(Some(0), Some(3_000)), Some(0.0));
        assert_eq!(waited(None, Some(3_000)), None);
        assert_eq!(waited(Some(0), Some(0)), None);
        // The median decides: a few samples that waited long do not make a busy host.
        assert_eq!(busy(&[0.0, 0.01, 0.9]), Some((0.01, false)));
        assert_eq!(busy(&[0.1, 0.3, 0.0]), Some((0.1, true)));
        assert_eq!(busy(&[0.09, 0.3, 0.0]), Some((0.09, false)));
        assert_eq!(busy(&[]), None);
    }

    #[test]
    fn a_sample_that_waited_a_tenth_of_its_ready_time_and_a_tick_is_singled_out_only_on_a_host_not_busy_throughout() {
        // (run delay, CPU time) in ms: shares 1%, 10%, 0, none, 42%, 9%, and 20% of a 5 ms sample.
        let ms = |delay: u64, cpu: u64| (Some(delay * 1_000_000), Some(cpu * 1_000_000));
        let free = [ms(1, 99), ms(20, 180), ms(0, 50), (None, Some(5)), ms(42, 58), ms(9, 91), ms(1, 4)];
        assert_eq!(kept_waiting(&free), [false, true, false, false, true, false, false], "1 ms is no tick");
        let busy_throughout = [ms(30, 70), ms(12, 88), ms(5, 95), ms(40, 60)];
        assert_eq!(kept_waiting(&busy_throughout), [false; 4], "every sample waited alike");
        assert_eq!(kept_waiting(&[(None, None), (None, Some(1))]), [false, false], "no run delays: nothing said");
    }
}
