use super::*;

/// A tolerance of 0.5 points of frames overflowed and 5% of CPU (as a log difference).
const TOLERANCE: Tolerance = Tolerance { overflow_points: 0.5, cpu_log: 0.05 };

fn figures(overflow_share: f64, cpu: f64) -> Option<Figures> {
    Some(Figures { overflow_share, cpu: Some(cpu) })
}

/// An eligible entrant of `rounds` rounds, none of its 100 frames a round overflowed, its CPU
/// per round `cpu(round)`.
fn entrant(rounds: u64, cpu: impl Fn(u64) -> f64) -> Entrant {
    Entrant {
        drops: (1..=rounds).map(|round| (round, 0, 100)).collect(),
        cpu: (1..=rounds).map(|round| (round, cpu(round))).collect(),
        eligible: true,
    }
}

#[test]
fn a_resample_picks_the_first_of_the_tie_in_the_rules_order_whichever_the_noise_put_lowest() {
    // In the rule's order: the first is 4% above the best, within 5%; the second has the
    // fewest drops but is ineligible; the third is the best; the fourth drops 1 point more.
    let all = [figures(0.010, 1040.0), figures(0.005, 1000.0), figures(0.010, 1000.0), figures(0.020, 900.0)];
    let first = vote(&all, &[true, false, true, true], TOLERANCE).unwrap();
    assert_eq!(first, Vote { winner: 0, fewest_with: 1, tie: vec![0, 1, 2] });
    // 6% above the best: separated behind it, and the best wins on its measurement.
    let all = [figures(0.010, 1060.0), figures(0.010, 1000.0)];
    assert_eq!(vote(&all, &[true, true], TOLERANCE).unwrap(), Vote { winner: 1, fewest_with: 1, tie: vec![1] });
    // An ineligible channel far below the best on CPU is not in its tie; one absent is not either.
    let all = [figures(0.0, 500.0), None, figures(0.0, 1000.0)];
    assert_eq!(vote(&all, &[false, true, true], TOLERANCE).unwrap(), Vote { winner: 2, fewest_with: 0, tie: vec![2] });
    assert_eq!(vote(&[figures(0.0, 1.0)], &[false], TOLERANCE), None, "nothing eligible");
}

#[test]
fn a_channel_far_ahead_wins_every_resample() {
    let entrants = [entrant(8, |round| 1000.0 + round as f64), entrant(8, |round| 500.0 + round as f64)];
    let tally = tally(&entrants, TOLERANCE, 200);
    assert_eq!((tally.wins.clone(), tally.pick()), (vec![0, 200], Some(1)));
    assert_eq!(tally.ranked(), [(1, 200)]);
    assert_eq!(tally.run, Some(Vote { winner: 1, fewest_with: 1, tie: vec![1] }));
    assert!(tally.tie_of(1).is_empty());
}

#[test]
fn one_file_gives_one_answer_and_a_tie_the_rule_breaks_is_named() {
    // The second is 2% below the first in every round: a tie, the first by rule.
    let entrants = [
        entrant(6, |round| 1000.0 * (1.0 + round as f64 / 10.0)),
        entrant(6, |round| 980.0 * (1.0 + round as f64 / 10.0)),
    ];
    let first = tally(&entrants, TOLERANCE, 300);
    assert_eq!(first, tally(&entrants, TOLERANCE, 300), "seeded: the same resamples");
    assert_eq!((first.pick(), first.wins.clone()), (Some(0), vec![300, 0]));
    assert_eq!(first.tie_of(0), [1]);
}

#[test]
fn three_channels_that_each_lead_in_a_third_of_the_rounds_split_the_wins() {
    // Each is cheap (500) in its own three of the nine rounds and dear (1500) in the rest: a
    // resample's winner is whichever had the most of its cheap rounds drawn.
    let lead = |own: u64| move |round: u64| if (round - 1) / 3 == own { 500.0 } else { 1500.0 };
    let entrants = [entrant(9, lead(0)), entrant(9, lead(1)), entrant(9, lead(2))];
    let tally = tally(&entrants, TOLERANCE, 1000);
    assert_eq!(tally.pick(), None, "{:?}", tally.wins);
    // A resample that drew as many of two channels' cheap rounds ties them: the first by rule.
    assert_eq!(tally.ranked(), [(0, 423), (1, 307), (2, 270)]);
}
