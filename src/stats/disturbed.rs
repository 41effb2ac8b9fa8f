//! Samples measured while the machine was disturbed: a stretch of the sweep in which the
//! samples of *other* cells, measured just before and just after, were also slower than their
//! own cells usually are (another tenant of a shared or virtual machine, the host moving a
//! virtual CPU). A cell's own spread cannot tell such a sample from a second cluster of the
//! channel, since a cell is sampled once per pass; its neighbours in time can. The sweep
//! measures such cells again, and every figure leaves the disturbed samples out (they stay in
//! the CSV). A sample is disturbed by its own measures too ([`own`]): that is the only test of a
//! paced sample, whose time is its schedule.

/// One sample as a sweep measured it, in the order it was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    /// The samples that the machine's state touches alike: one per runtime and worker count,
    /// since a single-threaded runtime does not feel what slows the cores' talk to each other.
    pub group: usize,
    /// The sample's cell: its samples' median is what its value is judged against.
    pub cell: usize,
    /// The sample's figure (ns/message).
    pub value: f64,
}

/// How many samples of other cells on each side of a sample, in its group, make its
/// neighbourhood.
pub const NEIGHBOURS: usize = 8;
/// How far, in samples of its group, a sample's neighbours are looked for on each side: a
/// sample further away is not a neighbour in time, and the search stays short where one cell
/// is sampled many times in a row (the last extra passes of a sweep).
pub const NEIGHBOUR_WINDOW: usize = 4 * NEIGHBOURS;
/// The fewest neighbours a verdict needs: with fewer (a short sweep, a sweep of one cell)
/// no sample is called disturbed.
pub const MIN_NEIGHBOURS: usize = 8;
/// The fewest distinct cells among a sample's neighbours for a verdict: in a sweep of a few
/// cells, one cell with a slow cluster of its own would otherwise be half of every neighbourhood.
pub const MIN_NEIGHBOUR_CELLS: usize = 6;
/// A sample is disturbed when the median of its neighbours' ratios to their own cells'
/// medians is at least this: well above a quiet stretch's, well below a disturbed one's
/// (docs/methodology.md).
pub const DISTURBED_RATIO: f64 = 1.3;
/// How many samples of other cells on each side judge a short disturbance, one too short for
/// [`NEIGHBOURS`] to see: a burst of a second or so that slows two to five samples in a row.
pub const SHORT_NEIGHBOURS: usize = 1;
/// A sample at least this much slower than its cell's median, whose nearest samples of other
/// cells on each side ([`SHORT_NEIGHBOURS`]) were on average at least this much slower than
/// theirs, is disturbed too (docs/methodology.md).
pub const SHORT_RATIO: f64 = 1.5;

/// For each of `samples` (in the order they were measured), whether it was measured in a
/// disturbed stretch: the median, over its [`NEIGHBOURS`] nearest samples of other cells of
/// its group on each side (within [`NEIGHBOUR_WINDOW`] samples of the group), of each one's
/// value over its own cell's median is at least [`DISTURBED_RATIO`]. A sample with fewer than [`MIN_NEIGHBOURS`] such neighbours or with
/// neighbours from fewer than [`MIN_NEIGHBOUR_CELLS`] cells, and one whose value is not a
/// positive number, is not disturbed. A sample is disturbed too when it and its nearest
/// neighbours were slow together: its value is at least [`SHORT_RATIO`] times its cell's
/// median and so is the median (for one a side, the mean) of its [`SHORT_NEIGHBOURS`] nearest
/// samples of other cells on each side, both sides present. A cell's median is taken over all
/// its samples here, the disturbed ones included: they are its minority as long as the
/// stretches are short.
pub fn disturbed(samples: &[Timed]) -> Vec<bool> {
    let usable = |sample: &Timed| sample.value > 0.0 && sample.value.is_finite();
    let mut by_cell: std::collections::HashMap<usize, Vec<f64>> = std::collections::HashMap::new();
    for sample in samples.iter().filter(|sample| usable(sample)) {
        by_cell.entry(sample.cell).or_default().push(sample.value);
    }
    let medians: std::collections::HashMap<usize, f64> =
        by_cell.into_iter().map(|(cell, mut values)| (cell, super::median_of(&mut values))).collect();
    let ratio = |sample: &Timed| usable(sample).then(|| sample.value / medians[&sample.cell]);
    let mut groups: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
    for (at, sample) in samples.iter().enumerate() {
        groups.entry(sample.group).or_default().push(at);
    }
    let mut verdict = vec![false; samples.len()];
    for members in groups.values() {
        for (position, &at) in members.iter().enumerate() {
            let this = &samples[at];
            let others = |index: &usize| {
                let other = &samples[*index];
                if other.cell == this.cell { None } else { ratio(other).map(|ratio| (other.cell, ratio)) }
            };
            // The median ratio of the `each` nearest neighbours on each side, when there are at
            // least `least` of them from at least `least_cells` cells.
            let slow_around = |each: usize, least: usize, least_cells: usize| {
                let before = &members[position.saturating_sub(NEIGHBOUR_WINDOW)..position];
                let after = &members[position + 1..(position + 1 + NEIGHBOUR_WINDOW).min(members.len())];
                let mut around: Vec<(usize, f64)> = before.iter().rev().filter_map(others).take(each).collect();
                around.extend(after.iter().filter_map(others).take(each));
                let cells: std::collections::BTreeSet<usize> = around.iter().map(|(cell, _)| *cell).collect();
                let ratios: Vec<f64> = around.into_iter().map(|(_, ratio)| ratio).collect();
                super::median(&ratios).filter(|_| ratios.len() >= least && cells.len() >= least_cells)
            };
            let Some(own) = ratio(this) else { continue };
            verdict[at] = slow_around(NEIGHBOURS, MIN_NEIGHBOURS, MIN_NEIGHBOUR_CELLS)
                .is_some_and(|median| median >= DISTURBED_RATIO)
                // Both sides present, and not one other cell twice.
                || own >= SHORT_RATIO
                    && slow_around(SHORT_NEIGHBOURS, 2 * SHORT_NEIGHBOURS, 2)
                        .is_some_and(|median| median >= SHORT_RATIO);
        }
    }
    verdict
}

/// Why a sample is left out of every figure (it stays in the CSV and is counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Why {
    /// The hypervisor stole at least one tick of CPU time during it (`steal_ns` > 0), in a
    /// file without the sample's own run delay (`run_delay_ns`): read for the whole machine.
    Steal,
    /// Its pacer fell behind its schedule (`pacer_behind`) while most of its cell's samples
    /// kept up, or while most of its round's channels fell behind too: the host's moment.
    PacerLate,
    /// Its CPU time or involuntary switches were far above its cell's others ([`own`]).
    Outlier,
    /// Samples of other cells measured around it were slow too ([`disturbed`]).
    Neighbours,
    /// Its threads waited to run far longer than its cell's others did ([`own`]), or a tenth of
    /// the time they were ready on a host not busy through the run
    /// (`super::machine::kept_waiting`): something took the sample's own CPUs.
    Waited,
    /// It was measured in a round where the machine read slow (`super::machine`): a reading
    /// taken before each sample, whatever the channel, far above the run's typical one.
    MachineSlow,
    /// It was measured in a round where the machine read fast (`super::machine`): a reading
    /// taken before each sample, whatever the channel, far below the run's typical one.
    MachineFast,
}

impl Why {
    /// Every reason, in the order outputs list them.
    pub const ALL: [Why; 7] =
        [Why::PacerLate, Why::Outlier, Why::Waited, Why::Neighbours, Why::MachineSlow, Why::MachineFast, Why::Steal];

    /// How every output names the reason: `steal tick`, `pacer late`, ….
    pub fn words(self) -> &'static str {
        match self {
            Why::Steal => "steal tick",
            Why::PacerLate => "pacer late",
            Why::Outlier => "CPU or switch outlier",
            Why::Neighbours => "slow with the cells around it",
            Why::Waited => "waited to run",
            Why::MachineSlow => "machine slow",
            Why::MachineFast => "machine fast",
        }
    }
}

/// What one sample recorded of its own disturbance, as [`own`] reads it: the CSV's columns.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Own {
    /// `steal_ns`: stolen time, nanoseconds, in whole 10 ms ticks.
    pub steal_ns: Option<u64>,
    /// `pacer_behind`: the pacer fell behind its schedule (a flat-out sample never does).
    pub pacer_behind: bool,
    /// `cpu_ns`: the process's CPU time over the clock.
    pub cpu_ns: Option<u64>,
    /// `involuntary_switches`: the process's preemptions over the clock.
    pub switches: Option<u64>,
    /// `run_delay_ns`: how long the process's threads waited to run over the clock.
    pub run_delay_ns: Option<u64>,
}

/// A sample whose CPU time or involuntary switch count is more than this many times the median
/// of its cell's other samples is an outlier ([`own`]).
pub const OUTLIER_FACTOR: f64 = 3.0;
/// The fewest other samples of its cell an outlier is judged against: with one other, either
/// of two samples could be the odd one.
pub const OUTLIER_OTHERS: usize = 2;
/// CPU time above the others' median by less than this is never an outlier: one scheduler
/// tick (10 ms), which a sample of a few milliseconds can gain from starting its threads.
pub const CPU_FLOOR_NS: f64 = 10_000_000.0;
/// Run delay above the others' median by less than this is never an outlier: one scheduler
/// tick (10 ms). A multi-thread runtime on as many workers as cores waits to run all along (its
/// threads and the driver outnumber the cores), so only a delay far above its cell's others
/// says that something else took the CPUs.
pub const RUN_DELAY_FLOOR_NS: f64 = 10_000_000.0;
/// Involuntary switches above the others' median by fewer than this are never an outlier: one
/// preemption per 10 ms tick of a 1 s sample, what an ordinary busy second has.
pub const SWITCH_FLOOR: f64 = 100.0;

/// For each sample of one cell, why it is left out by its own measures, if it is: a steal tick
/// in a file without run delays ([`Why::Steal`]: steal is read for the whole machine, and on
/// many CPUs ticks land while a sample runs on a few); a pacer behind in a minority of the cell's samples ([`Why::PacerLate`]:
/// behind in most, the channel could not keep up and its cell says so instead); or CPU time or
/// involuntary switches more than [`OUTLIER_FACTOR`] times the median of the cell's other
/// samples, at least [`OUTLIER_OTHERS`] of them, and above it by at least [`CPU_FLOOR_NS`] or
/// [`SWITCH_FLOOR`] ([`Why::Outlier`]). The median of the others, not their mean or spread:
/// one disturbed sample among three moves neither the median of the rest nor its own verdict.
/// Run delay, where the file has it, is judged the same way ([`Why::Waited`], above
/// [`RUN_DELAY_FLOOR_NS`]).
pub fn own(cell: &[Own]) -> Vec<Option<Why>> {
    let behind = cell.iter().filter(|sample| sample.pacer_behind).count();
    let far_above = |at: usize, of: fn(&Own) -> Option<u64>, floor: f64| {
        let Some(value) = of(&cell[at]) else { return false };
        let mut others: Vec<f64> = cell
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != at)
            .filter_map(|(_, s)| Some(of(s)? as f64))
            .collect();
        if others.len() < OUTLIER_OTHERS {
            return false;
        }
        let median = super::median_of(&mut others);
        value as f64 > OUTLIER_FACTOR * median && value as f64 - median >= floor
    };
    (0..cell.len())
        .map(|at| {
            let sample = &cell[at];
            if sample.steal_ns.is_some_and(|ns| ns > 0) && sample.run_delay_ns.is_none() {
                Some(Why::Steal)
            } else if sample.pacer_behind && 2 * behind <= cell.len() {
                Some(Why::PacerLate)
            } else if far_above(at, |s| s.cpu_ns, CPU_FLOOR_NS) || far_above(at, |s| s.switches, SWITCH_FLOOR) {
                Some(Why::Outlier)
            } else if far_above(at, |s| s.run_delay_ns, RUN_DELAY_FLOOR_NS) {
                Some(Why::Waited)
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calm sample of a 1 s paced cell: 44 ms of CPU, 60 switches.
    const CALM: Own = Own {
        steal_ns: Some(0),
        pacer_behind: false,
        cpu_ns: Some(44_000_000),
        switches: Some(60),
        run_delay_ns: None,
    };

    #[test]
    fn a_steal_tick_leaves_a_sample_out_whatever_else_it_recorded() {
        let ticked = Own { steal_ns: Some(10_000_000), ..CALM };
        assert_eq!(own(&[ticked, CALM]), [Some(Why::Steal), None]);
        assert_eq!(own(&[Own { steal_ns: None, ..CALM }, CALM]), [None, None], "no steal column: nothing said");
    }

    #[test]
    fn with_its_own_run_delay_a_sample_is_judged_by_it_and_not_by_the_machines_steal() {
        let waiting = |ms: u64| Own { run_delay_ns: Some(ms * 1_000_000), ..CALM };
        // A steal tick somewhere on the machine, while the sample's threads waited as usual.
        let ticked = Own { steal_ns: Some(10_000_000), ..waiting(40) };
        assert_eq!(own(&[ticked, waiting(40), waiting(42)]), [None, None, None]);
        // Its threads waited 4× its cell's others, and by more than a tick.
        assert_eq!(own(&[waiting(170), waiting(40), waiting(42)]), [Some(Why::Waited), None, None]);
        // Four times a few milliseconds is inside one tick: not judged.
        assert_eq!(own(&[waiting(8), waiting(1), waiting(2)]), [None, None, None]);
    }

    #[test]
    fn a_pacer_behind_in_a_minority_is_late_and_in_most_it_is_the_channels() {
        let behind = Own { pacer_behind: true, ..CALM };
        assert_eq!(own(&[behind, CALM, CALM]), [Some(Why::PacerLate), None, None]);
        assert_eq!(own(&[behind, CALM]), [Some(Why::PacerLate), None], "one of two is not most");
        assert_eq!(own(&[behind, behind, CALM]), [None, None, None]);
    }

    #[test]
    fn cpu_or_switches_far_above_the_cells_others_is_an_outlier() {
        let hot = Own { cpu_ns: Some(173_000_000), ..CALM };
        assert_eq!(own(&[hot, CALM, CALM]), [Some(Why::Outlier), None, None]);
        assert_eq!(own(&[hot, CALM]), [None, None], "one other sample judges nothing");
        let switched = Own { switches: Some(717), ..CALM };
        assert_eq!(own(&[CALM, switched, CALM, CALM]), [None, Some(Why::Outlier), None, None]);
        // 2.9× the others' median, or far above it by less than the floor, stays.
        let warm = Own { cpu_ns: Some(127_600_000), ..CALM };
        assert_eq!(own(&[warm, CALM, CALM]), [None, None, None]);
        let tiny = |cpu_ns| Own { cpu_ns: Some(cpu_ns), switches: Some(cpu_ns / 100_000), ..CALM };
        assert_eq!(own(&[tiny(4_000_000), tiny(500_000), tiny(600_000)]), [None, None, None]);
    }

    /// `passes` passes over `cells` cells of one group, each cell's value `base(cell)`,
    /// multiplied by `slow(position)` at each position of the sequence.
    fn sweep(cells: usize, passes: usize, slow: impl Fn(usize) -> f64) -> Vec<Timed> {
        (0..cells * passes)
            .map(|at| {
                let cell = (at * 7 + at / cells) % cells;
                Timed { group: 0, cell, value: (10.0 + cell as f64 * 5.0) * slow(at) }
            })
            .collect()
    }

    #[test]
    fn a_quiet_sweep_has_no_disturbed_sample() {
        let wobble = |at: usize| 1.0 + 0.15 * ((at * 37 % 11) as f64 / 10.0 - 0.5);
        assert!(disturbed(&sweep(20, 5, wobble)).iter().all(|&flag| !flag));
    }

    #[test]
    fn a_slow_stretch_is_disturbed_and_only_it() {
        let samples = sweep(20, 5, |at| if (40..60).contains(&at) { 2.2 } else { 1.0 });
        let flags = disturbed(&samples);
        for (at, &flag) in flags.iter().enumerate() {
            let deep_inside = (44..56).contains(&at);
            let far_outside = !(32..68).contains(&at);
            assert!(!deep_inside || flag, "{at} is inside the stretch");
            assert!(!far_outside || !flag, "{at} is outside it");
        }
    }

    #[test]
    fn a_cell_with_two_clusters_among_quiet_cells_is_not_disturbed() {
        // Cell 0 is slow in 2 of every 5 of its samples; the cells around it are quiet.
        let mut samples = sweep(20, 5, |_| 1.0);
        for (seen, sample) in samples.iter_mut().filter(|sample| sample.cell == 0).enumerate() {
            if seen % 5 < 2 {
                sample.value *= 2.5;
            }
        }
        assert!(disturbed(&samples).iter().all(|&flag| !flag));
    }

    #[test]
    fn a_burst_of_slow_samples_is_disturbed_but_not_a_lone_slow_one() {
        let burst = |range: std::ops::Range<usize>| sweep(20, 5, move |at| if range.contains(&at) { 2.2 } else { 1.0 });
        // Three samples in a row, of three cells: the middle one has both neighbours slow, each
        // end one slow neighbour and a quiet one (on average 1.6).
        let flags = disturbed(&burst(40..43));
        assert_eq!(
            flags.iter().enumerate().filter(|&(_, &flag)| flag).map(|(at, _)| at).collect::<Vec<_>>(),
            [40, 41, 42]
        );
        // One slow sample among quiet ones is left to the cell's own spread.
        assert!(disturbed(&burst(40..41)).iter().all(|&flag| !flag));
        // A sample that was not slow itself stays, even beside a burst.
        let flags = disturbed(&burst(41..43));
        assert!(flags[41] && flags[42] && !flags[40] && !flags[43]);
    }

    #[test]
    fn groups_are_judged_apart_and_a_lone_cell_never() {
        // Group 1's stretch is slow; group 0, interleaved with it, is not.
        let samples: Vec<Timed> = (0..200)
            .map(|at| {
                let group = at % 2;
                let slow = if group == 1 && (80..120).contains(&at) { 2.0 } else { 1.0 };
                Timed { group, cell: group * 100 + at / 2 % 10, value: 50.0 * slow }
            })
            .collect();
        let flags = disturbed(&samples);
        assert!(flags.iter().zip(&samples).all(|(&flag, sample)| !flag || sample.group == 1));
        assert!(flags[99], "deep inside group 1's stretch");
        // Three cells, one of them slow in every other sample: too few cells to judge by.
        let few: Vec<Timed> = (0..30)
            .map(|at| Timed { group: 0, cell: at % 3, value: if at % 3 == 0 && at % 2 == 0 { 120.0 } else { 50.0 } })
            .collect();
        assert!(disturbed(&few).iter().all(|&flag| !flag), "three cells are too few");
        let lone: Vec<Timed> = (0..40).map(|at| Timed { group: 0, cell: 0, value: 1.0 + (at / 20) as f64 }).collect();
        assert!(disturbed(&lone).iter().all(|&flag| !flag), "a sweep of one cell has no neighbours");
    }

    #[test]
    fn values_that_are_not_positive_numbers_are_never_disturbed_nor_counted() {
        let mut samples = sweep(20, 5, |at| if (40..60).contains(&at) { 2.2 } else { 1.0 });
        samples[50].value = f64::NAN;
        samples[51].value = 0.0;
        let flags = disturbed(&samples);
        assert!(!flags[50] && !flags[51] && flags[49] && flags[52]);
    }
}
