use super::*;
use crate::results::paced::tests::{file, sample};
use crate::stats;

fn cell(values: &[f64]) -> ResultsFile {
    crate::results::load::hand_made(&[("a", 1, values, 0)])
}

/// The verdict of `compare` on one hand-made cell.
fn verdict(old: &[f64], new: &[f64]) -> Call {
    let (old, new) = (cell(old), cell(new));
    compare(&old, &new).cells[0].1.as_ref().map_or(Call::Tied, |compared| compared.call)
}

#[test]
fn clearly_lower_is_faster_and_higher_is_slower() {
    let old = [100.0, 101.0, 99.0, 100.5, 100.2];
    let new = [60.0, 61.0, 59.5, 60.2, 60.9];
    assert_eq!(verdict(&old, &new), Call::Lower);
    assert_eq!(verdict(&new, &old), Call::Higher);
}

#[test]
fn overlapping_noise_is_no_change() {
    let old = [100.0, 140.0, 90.0, 120.0, 105.0];
    let new = [115.0, 150.0, 95.0, 130.0, 118.0];
    assert_eq!(verdict(&old, &new), Call::Tied);
}

#[test]
fn a_steady_change_inside_the_drift_between_runs_is_no_change() {
    // 5% apart with almost no spread: runs of one build move a multi-thread cell that much.
    let old = [100.0, 100.1, 100.2, 100.0, 100.1];
    let new = [105.0, 105.1, 105.2, 105.0, 105.1];
    assert_eq!(verdict(&old, &new), Call::Tied);
    let interval = compare(&cell(&old), &cell(&new)).cells[0].1.as_ref().unwrap().interval;
    assert!(interval.0 < 1.0 && interval.1 > 1.05, "{interval:?}");
}

#[test]
fn a_flipped_majority_cluster_is_no_change() {
    // The same two clusters, 60/40 one run and 40/60 the next: the median jumps 3×, the
    // trimmed means 67 and 93 are far apart, but so are the samples within each run.
    let old = [40.0, 41.0, 39.0, 120.0, 121.0];
    let new = [40.0, 41.0, 119.0, 120.0, 121.0];
    assert!(stats::median_of(&mut new.clone()) / stats::median_of(&mut old.clone()) > 2.9);
    assert_eq!(verdict(&old, &new), Call::Tied);
}

#[test]
fn spreads_are_symmetric_ratios() {
    let spread = spread([(100.0, 110.0), (110.0, 100.0), (100.0, 300.0), (0.0, 5.0)]).unwrap();
    assert_eq!((spread.cells, spread.worst), (3, 3.0));
    assert!((spread.median - 1.1).abs() < 1e-12);
    assert_eq!(super::spread([]), None);
}

#[test]
fn agreement_counts_groups_and_bands_that_pick_alike() {
    use crate::results::load::hand_made;
    let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
    let (a, b, c) = (steady(100.0), steady(200.0), steady(101.0));
    // Tasks 1: a clearly first in both. Tasks 64: a in one run, b in the other, both clear.
    let old = hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0), ("a", 64, &a, 0), ("b", 64, &b, 0)]);
    let new = hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0), ("a", 64, &b, 0), ("b", 64, &a, 0)]);
    let agreement = compare(&old, &new).agreement;
    assert_eq!((agreement.groups, agreement.same_fastest), (2, 1));
    assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (2, 1, 1));
    // A tie within the threshold contradicts nothing.
    let tied = hand_made(&[("a", 1, &c, 0), ("b", 1, &a, 0)]);
    let agreement = compare(&hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0)]), &tied).agreement;
    assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (1, 1, 0));
}

#[test]
fn one_sample_a_side_with_nothing_else_measured_is_never_enough() {
    assert_eq!(verdict(&[100.0], &[300.0]), Call::Tied);
}

#[test]
fn two_paced_runs_agree_by_the_ratio_of_pooled_p99s_the_overflow_points_and_the_cpu_ratio() {
    let run = |p99: u64, overflowed: u64, cpu: u64| {
        file(vec![
            ("a", 8, vec![sample(vec![p99; 100], (100, overflowed), overflowed, cpu)]),
            ("b", 8, vec![sample(vec![1000; 100], (100, 0), 0, 1_000_000)]),
        ])
    };
    let (old, new) = (run(1000, 0, 1_000_000), run(3000, 10, 1_200_000));
    let aa = compare(&old, &new).paced;
    assert_eq!(aa.cells.len(), 2);
    let p99 = aa.p99.unwrap();
    assert!((p99.worst / 3.0 - 1.0).abs() < 0.01 && p99.median > 1.0, "{p99:?}");
    assert_eq!(aa.overflow_points, Some((5.0, 10.0)));
    // Per delivered message: 800 then 790 delivered.
    assert!((aa.cpu.unwrap().worst - (1_200_000.0 / 790.0) / (1_000_000.0 / 800.0)).abs() < 1e-9);
    assert_eq!(aa.bands, 1);
    // One sample a side: no verdict, so each run's first leads alone; a first, then b first.
    let alone = run(500, 0, 1_000_000);
    let flipped = compare(&alone, &new).paced;
    assert_eq!(flipped.contradicted[0], 1, "a alone, then b alone");
}

#[test]
fn leaders_overlap_when_one_channel_leads_in_every_list_that_names_one() {
    assert!(leaders_overlap(&[vec!["a", "b"], vec![], vec!["b"]]));
    assert!(!leaders_overlap(&[vec!["a"], vec!["b"]]));
    assert!(leaders_overlap::<&str>(&[vec![], vec!["b"]]));
}
