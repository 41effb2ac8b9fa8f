//! Stretches of the machine off its typical speed: the rounds of a run in which the machine's
//! reading (`run::reading`, taken right before each sample, whatever the channel) was away from
//! the run's own typical reading, slower or faster, by more than the reading's noise. On a shared
//! VM whole stretches of a run are 2–2.5× slower for every channel at once while nothing the
//! process sees of its own threads shows it; a stretch can be faster too, where the host put the
//! two virtual CPUs side by side. The reading shows both. A round is judged as a whole (the median
//! of its samples' readings), so that the rounds left out take every channel of theirs with them
//! and the rounds kept still pair.

use std::collections::BTreeMap;

use serde::Serialize;

/// A round is off its typical speed when its reading is at least this many times the run's
/// typical reading, or at most its inverse, however tight the readings are: a calm 2-core VM's
/// rounds read within 1.3× of each other.
pub const SLOW_FACTOR: f64 = 1.4;
/// How many robust standard deviations (of the logarithm of the rounds' readings) away from the
/// typical reading an off round's is, at least: on a host whose readings spread wider than
/// [`SLOW_FACTOR`] allows for, the limits widen with them.
pub const SPREAD_Z: f64 = 4.0;
/// The fewest rounds read before any is judged: with fewer, the run's typical reading is not
/// known.
pub const FEWEST_ROUNDS: usize = 6;
/// The fewest rounds in a row off the same way that make a stretch: the machine changing for a
/// while, not one round that other work on the host held up (the per-sample checks of
/// `stats::disturbed` and the paired verdicts take care of those).
pub const FEWEST_IN_A_STRETCH: usize = 3;

/// Which way a round's reading is off the run's typical one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Off {
    /// Above the upper limit: the machine was slower than it mostly was.
    Slow,
    /// Below the lower limit: the machine was faster than it mostly was.
    Fast,
}

/// The verdict on one kind of reading over a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The run's typical reading: the median of its rounds', the speed the machine kept for
    /// most of the run. A stretch off it either way is the minority, so that at most half of a
    /// run's rounds are ever left out, and the rest can be measured again at that speed.
    pub typical: f64,
    /// The reading above which a round is slow: `typical` times [`SLOW_FACTOR`], or
    /// [`SPREAD_Z`] robust standard deviations above it when that is more. A round is fast below
    /// `typical` divided by the same factor.
    pub limit: f64,
    /// Every round read, in order, with its reading (the median of its samples').
    pub rounds: Vec<(u64, f64)>,
    /// The off rounds in order, grouped into stretches: rounds off the same way that follow each
    /// other among the rounds read (none read between them) are one stretch, and only a stretch
    /// of [`FEWEST_IN_A_STRETCH`] rounds or more counts.
    pub stretches: Vec<(Off, Vec<u64>)>,
}

impl Judged {
    /// Which way round `round` is off, if it is.
    pub fn off(&self, round: u64) -> Option<Off> {
        self.stretches.iter().find(|(_, rounds)| rounds.contains(&round)).map(|(off, _)| *off)
    }

    /// The median over the rounds off the `way` given of how many times slower (or faster) than
    /// the typical reading they read; `None` when no round is off that way.
    pub fn factor(&self, way: Off) -> Option<f64> {
        let mut ratios: Vec<f64> = (self.rounds.iter())
            .filter(|(round, _)| self.off(*round) == Some(way))
            .map(|(_, reading)| if way == Off::Slow { reading / self.typical } else { self.typical / reading })
            .collect();
        (!ratios.is_empty()).then(|| super::median_of(&mut ratios))
    }

    /// Which way `reading` is off: above [`Judged::limit`], or below `typical` by as much.
    fn way(&self, reading: f64) -> Option<Off> {
        let floor = self.typical * self.typical / self.limit;
        (reading > self.limit).then_some(Off::Slow).or((reading < floor).then_some(Off::Fast))
    }
}

/// Judges `readings` (each sample's round and reading, any order; readings that are not
/// positive numbers are ignored): each round's reading is the median of its samples'; the
/// typical reading is the median of the rounds'; a round whose reading is above
/// [`Judged::limit`] is slow, and one as far below the typical one is fast. `None` with fewer
/// than [`FEWEST_ROUNDS`] rounds read.
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
    let typical = super::median_of(&mut rounds.iter().map(|(_, reading)| *reading).collect::<Vec<f64>>());
    let mut deviations: Vec<f64> = rounds.iter().map(|(_, reading)| (reading / typical).ln().abs()).collect();
    let spread = 1.4826 * super::median_of(&mut deviations);
    let limit = typical * SLOW_FACTOR.max((SPREAD_Z * spread).exp());
    let mut judged = Judged { typical, limit, rounds, stretches: Vec::new() };
    let ways: Vec<(u64, Option<Off>)> =
        judged.rounds.iter().map(|&(round, reading)| (round, judged.way(reading))).collect();
    judged.stretches = (ways.chunk_by(|(_, a), (_, b)| a == b))
        .filter(|run| run.len() >= FEWEST_IN_A_STRETCH)
        .filter_map(|run| Some((run[0].1?, run.iter().map(|(round, _)| *round).collect())))
        .collect();
    Some(judged)
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
    let mut shares = shares.to_vec();
    (!shares.is_empty()).then(|| {
        let median = super::median_of(&mut shares);
        (median, median >= BUSY_SHARE)
    })
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
    fn a_calm_run_has_no_round_off_its_speed() {
        let wobble = |round: u64| 100.0 + (round * 37 % 11) as f64 * 2.0;
        let judged = judge(&run(20, wobble)).unwrap();
        assert_eq!(judged.rounds.len(), 20);
        assert!(judged.stretches.is_empty(), "{judged:?}");
        assert_eq!((judged.factor(Off::Slow), judged.factor(Off::Fast)), (None, None));
    }

    #[test]
    fn two_slow_stretches_are_found_with_their_typical_limit_and_factor() {
        // 20 rounds at 101 ns (two samples, 100 and 102), rounds 4–6 and 14–16 at 250 (2.5×),
        // round 10 alone: one slow round is no stretch.
        let slow = |round: u64| (4..=6).contains(&round) || (14..=16).contains(&round) || round == 10;
        let base = |round: u64| if slow(round) { 249.0 } else { 100.0 };
        let judged = judge(&run(20, base)).unwrap();
        assert_eq!(judged.typical, 101.0);
        assert_eq!(judged.limit, 101.0 * SLOW_FACTOR, "the readings agree: the factor's floor");
        assert_eq!(judged.stretches, [(Off::Slow, vec![4, 5, 6]), (Off::Slow, vec![14, 15, 16])]);
        assert!(judged.off(5) == Some(Off::Slow) && judged.off(7).is_none() && judged.off(10).is_none());
        assert_eq!(judged.factor(Off::Slow), Some(250.0 / 101.0));
        assert_eq!(judged.factor(Off::Fast), None);
    }

    #[test]
    fn a_fast_stretch_is_off_too_and_the_speed_kept_most_of_the_run_is_the_typical_one() {
        // Rounds 8–13 of 20 at 40 ns against 150 (the two virtual CPUs side by side for a while),
        // round 14 on its way back (within the factor): six fast rounds, judged against the other 14.
        let base = |round: u64| match round {
            8..=13 => 39.0,
            14 => 119.0,
            _ => 149.0,
        };
        let judged = judge(&run(20, base)).unwrap();
        assert_eq!(judged.typical, 150.0);
        assert_eq!(judged.stretches, [(Off::Fast, (8..=13).collect::<Vec<u64>>())]);
        assert_eq!(judged.factor(Off::Fast), Some(150.0 / 40.0));
        // Slow in 13 of 20 rounds: the slow speed is the run's typical one, and its 7 fast rounds
        // are the stretch off it (at most half of a run is ever left out).
        let judged = judge(&run(20, |round| if round <= 13 { 299.0 } else { 99.0 })).unwrap();
        assert_eq!(judged.typical, 300.0);
        assert_eq!(judged.stretches, [(Off::Fast, (14..=20).collect::<Vec<u64>>())]);
        assert_eq!(judged.factor(Off::Fast), Some(3.0));
    }

    #[test]
    fn a_wide_spread_widens_the_limit_and_one_slow_sample_does_not_make_a_slow_round() {
        // Rounds read 101, 116, 131 and 146 in turn: their spread is wider than the factor's
        // floor allows for.
        let spread = |round: u64| 100.0 + 15.0 * (round % 4) as f64;
        let mut readings = run(12, spread);
        let judged = judge(&readings).unwrap();
        assert_eq!(judged.typical, 123.5);
        let deviation = 1.4826 * ((146.0f64 / 123.5).ln() + (123.5f64 / 116.0).ln()) / 2.0;
        assert!((judged.limit - 123.5 * (SPREAD_Z * deviation).exp()).abs() < 1e-9, "{judged:?}");
        assert!(judged.limit > 123.5 * SLOW_FACTOR);
        assert!(judged.stretches.is_empty());
        // A third sample of round 3 reading 10× is outvoted by the round's other two.
        readings.push((3, 1450.0));
        assert!(judge(&readings).unwrap().stretches.is_empty());
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
