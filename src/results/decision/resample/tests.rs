use super::*;

/// A tolerance of 0.5 points of frames overflowed, 5% of CPU and 10% of p99 (as log differences).
const TOLERANCE: Tolerance = Tolerance { overflow_points: 0.5, cpu_log: 0.05, p99_log: 0.1 };

fn figures(overflow_share: f64, cpu: f64) -> Figures {
    Figures { overflow_share, cpu: Some(cpu), p99: None }
}

/// The default order: drops, then CPU.
fn sfu() -> Weighing {
    Weighing::default()
}

/// An eligible entrant of `rounds` rounds, `overflowed(round)` of its 100 frames a round
/// overflowed, its CPU per round `cpu(round)`.
fn entrant(rounds: u64, overflowed: impl Fn(u64) -> u64, cpu: impl Fn(u64) -> f64) -> Entrant {
    Entrant {
        drops: (1..=rounds).map(|round| (round, overflowed(round), 100)).collect(),
        cpu: (1..=rounds).map(|round| (round, cpu(round))).collect(),
        latency: Latencies::default(),
        eligible: true,
    }
}

#[test]
fn ahead_means_fewer_drops_beyond_the_tolerance_or_as_few_and_less_cpu_beyond_it() {
    // 0.4 points fewer drops is within 0.5: CPU decides, 6% less is beyond 5%, 4% is not.
    assert!(ahead(figures(0.010, 1000.0), figures(0.014, 1060.0), TOLERANCE, &sfu()));
    assert!(!ahead(figures(0.010, 1000.0), figures(0.014, 1040.0), TOLERANCE, &sfu()));
    // 0.6 points fewer drops is ahead whatever the CPU; 0.6 more is behind whatever the CPU.
    assert!(ahead(figures(0.010, 2000.0), figures(0.016, 1000.0), TOLERANCE, &sfu()));
    assert!(!ahead(figures(0.016, 500.0), figures(0.010, 1000.0), TOLERANCE, &sfu()));
    let no_cpu = Figures { overflow_share: 0.0, cpu: None, p99: None };
    assert!(
        !ahead(no_cpu, figures(0.0, 1000.0), TOLERANCE, &sfu()) && !ahead(figures(0.0, 1.0), no_cpu, TOLERANCE, &sfu())
    );
    // Of the eligible, one other within 0.5 points of the fewest; the ineligible one aside.
    let all = [Some(figures(0.008, 1.0)), Some(figures(0.0, 1.0)), Some(figures(0.004, 1.0)), None];
    assert_eq!(best_with(&all, &[true, false, true, true], TOLERANCE, Weigh::Drops), Some(1));
    assert_eq!(best_with(&all, &[false; 4], TOLERANCE, Weigh::Drops), None, "nothing eligible");
}

#[test]
fn a_channel_far_ahead_passes_the_rules_first_over_in_every_resample() {
    let entrants = [entrant(8, |_| 0, |round| 1000.0 + round as f64), entrant(8, |_| 0, |round| 500.0 + round as f64)];
    let tally = tally(&entrants, TOLERANCE, &sfu(), 200);
    assert_eq!(tally.ahead, [[0, 0], [200, 0]]);
    assert_eq!((tally.pick(), tally.closest(0), tally.closest(1)), (Some(1), Some((1, 200)), Some((0, 0))));
    assert!(tally.passed_over(0) && !tally.passed_over(1));
    assert!(tally.tie_of(1).is_empty());
    assert_eq!(tally.best_with, Some(1));
}

#[test]
fn one_file_gives_one_answer_and_the_rules_first_stays_until_a_challenger_is_clearly_better() {
    // The second is 2% below the first in every round: within 5%, never ahead beyond it.
    let near = [
        entrant(6, |_| 0, |round| 1000.0 * (1.0 + round as f64 / 10.0)),
        entrant(6, |_| 0, |round| 980.0 * (1.0 + round as f64 / 10.0)),
    ];
    let first = tally(&near, TOLERANCE, &sfu(), 300);
    assert_eq!(first, tally(&near, TOLERANCE, &sfu(), 300), "seeded: the same resamples");
    assert_eq!((first.pick(), first.closest(0)), (Some(0), Some((1, 0))));
    assert_eq!(first.tie_of(0), [1]);
    // 6% below in half the rounds and 2% in the rest: ahead in some resamples, not in 95%.
    let hair = |round: u64| if round.is_multiple_of(2) { 940.0 } else { 980.0 };
    let entrants = [entrant(6, |_| 0, |_| 1000.0), entrant(6, |_| 0, hair)];
    let split = tally(&entrants, TOLERANCE, &sfu(), 1000);
    let (_, resamples) = split.closest(0).unwrap();
    assert!(resamples > 0 && resamples < 950, "{resamples}");
    assert_eq!(split.pick(), Some(0));
}

#[test]
fn a_circle_of_channels_each_behind_another_has_no_pick() {
    // Drops 0, 0.4 and 0.8 points, CPU 1000, 800 and 600: each is ahead of the one before it on
    // CPU within the drops' tolerance, and the first is ahead of the last on drops.
    let steady = |overflowed: u64, cpu: f64| Entrant {
        drops: (1..=6).map(|round| (round, overflowed, 500)).collect(),
        cpu: (1..=6).map(|round| (round, cpu)).collect(),
        latency: Latencies::default(),
        eligible: true,
    };
    let entrants = [steady(0, 1000.0), steady(2, 800.0), steady(4, 600.0)];
    let circle = tally(&entrants, TOLERANCE, &sfu(), 500);
    assert_eq!(circle.pick(), None, "{:?}", circle.ahead);
    assert!((0..3).all(|at| circle.passed_over(at)), "{:?}", circle.ahead);
    // An ineligible channel passes none over: the first is kept.
    let mut known = entrants.clone();
    known[2].eligible = false;
    let kept = tally(&known, TOLERANCE, &sfu(), 500);
    assert_eq!(kept.pick(), Some(1), "{:?}", kept.ahead);
}

#[test]
fn a_resamples_p99_with_every_round_once_is_the_merged_histograms_and_weighs_in_its_order() {
    use crate::run::latency::empty_histogram;
    let (mut rounds, mut merged, mut second) = (Vec::new(), empty_histogram(), 0);
    for (round, values) in [(1, [1_000u64, 2_000, 150_000]), (2, [3_000, 4_000, 5_000])] {
        let mut histogram = empty_histogram();
        for value in values {
            histogram.record_n(value, 40).unwrap();
        }
        merged.add(&histogram).unwrap();
        second = histogram.value_at_quantile(0.99);
        let buckets = histogram.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        rounds.push((round, buckets));
    }
    let latencies = Latencies::of(rounds);
    assert_eq!(latencies.p99(&|_| 1), Some(merged.value_at_quantile(0.99) as f64));
    assert_eq!(latencies.p99(&|round| usize::from(round == 2)), Some(second as f64), "round 2 alone");
    assert_eq!(latencies.p99(&|_| 0), None);
    // p99 first: 30% lower is beyond 10%; within it, CPU decides.
    let p99 = |p99: f64, cpu: f64| Figures { overflow_share: 0.0, cpu: Some(cpu), p99: Some(p99) };
    let order = crate::results::decision::weigh::parse("p99,cpu").unwrap();
    assert!(ahead(p99(70.0, 2000.0), p99(100.0, 1000.0), TOLERANCE, &order));
    assert!(ahead(p99(95.0, 900.0), p99(100.0, 1000.0), TOLERANCE, &order));
    assert!(!ahead(p99(95.0, 990.0), p99(100.0, 1000.0), TOLERANCE, &order));
    assert!(ahead(p99(100.0, 1000.0), p99(70.0, 2000.0), TOLERANCE, &sfu()), "the SFU's order weighs CPU");
}
