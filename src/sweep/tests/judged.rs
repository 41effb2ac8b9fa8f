//! The verdicts of whole runs on synthetic samples: a paired A/B run of two builds
//! (`results::ab`) and `compare` of two runs (`results::compare`), flat out and paced.

use super::*;
use crate::results::ab::{self, Ab, BASELINE, CANDIDATE};
use crate::results::compare::{Counts, compare};
use crate::results::load::{builds_of, load, load_builds};
use crate::stats::verdict::Call;

/// A paired A/B run's place on synthetic samples: both builds measure every job, no screening,
/// and the duels measure the cells whose change is open, as `app::ab`'s place does.
struct Paired(Synthetic);

impl Place for Paired {
    fn take(
        &mut self,
        isolation: Isolation,
        jobs: &[Job],
        watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        self.0.take(isolation, jobs, watchdog, taken)
    }

    fn duels(&mut self, rows: &[Record]) -> anyhow::Result<Option<Vec<CellKey>>> {
        let [baseline, candidate] = builds_of(rows, [BASELINE, CANDIDATE], false);
        Ok(Some(ab::judge(&baseline, &candidate).open(&baseline)))
    }

    fn own_build(&self) -> &'static str {
        CANDIDATE
    }

    fn screens(&self) -> bool {
        false
    }
}

/// The flags of the A/B runs here: kanal and flume, current-thread, tasks 1 and 4 (one band),
/// both modes, 4 screening rounds, then duels until no change is open.
const AB_PLAN: [&str; 14] = [
    "--channels",
    "kanal,flume",
    "--runtimes",
    "current-thread",
    "--tasks",
    "1,4",
    "--capacity",
    "65536",
    "--samples",
    "4",
    "--max-time",
    "600",
    "--messages",
    "40000",
];

/// Runs [`AB_PLAN`] into `path` with two builds, the candidate's channels slowed by `slowed`
/// (a factor per channel on the baseline's figures): the place, with its rounds counted, and
/// the rows the run kept in memory as it wrote them.
pub(crate) fn ab_run(path: &Path, slowed: &[(&'static str, f64)]) -> (Synthetic, Vec<Record>) {
    let builds = vec![(BASELINE, HashMap::new()), (CANDIDATE, slowed.iter().copied().collect())];
    let mut place = Paired(Synthetic { builds, ..Synthetic::new(&[("kanal", 1.0), ("flume", 1.2)]) });
    let outcome = sweep_to(path, &AB_PLAN, &mut place);
    (place.0, outcome.rows)
}

/// The (channel, place, call) of every change of `changes`.
fn calls(changes: &[ab::Change]) -> Vec<(String, String, Call)> {
    changes.iter().map(|change| (change.channel.clone(), change.place.clone(), change.call)).collect()
}

#[test]
fn a_channel_slowed_on_one_build_is_called_slower_and_no_other_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ab.csv");
    let (place, _) = ab_run(&path, &[("kanal", 2.0)]);
    let [baseline, candidate] = load_builds(&path, [BASELINE, CANDIDATE]).unwrap();
    let judged: Ab = ab::judge(&baseline, &candidate);
    let call = |channel: &str| if channel == "kanal" { Call::Higher } else { Call::Tied };
    let expected = |changes: &[ab::Change]| -> Vec<(String, String, Call)> {
        changes.iter().map(|change| (change.channel.clone(), change.place.clone(), call(&change.channel))).collect()
    };
    assert_eq!(calls(&judged.bands), expected(&judged.bands));
    assert_eq!(calls(&judged.cells), expected(&judged.cells));
    // Both modes' band of each channel, and its two cells; nothing left out.
    assert_eq!((judged.bands.len(), judged.cells.len(), judged.left_out.len()), (4, 8, 0));
    for change in judged.bands.iter().filter(|change| change.channel == "kanal") {
        assert!(change.low < 2.0 && 2.0 < change.high, "{change:?}");
    }
    // flume's ties are open (wider than the run's resolution) but centred on no change: no duel
    // measures them again, so the run is its four screening rounds of each of its four groups
    // (two modes × two task counts).
    for change in judged.bands.iter().chain(&judged.cells) {
        assert_eq!(change.open, change.channel == "flume", "{change:?}");
        assert!(change.channel == "kanal" || change.leaning() < ab::LEANING, "{change:?}");
    }
    assert_eq!(place.calls, 4 * 4);
    assert!(baseline.cells.values().chain(candidate.cells.values()).all(|cell| cell.ok.len() == 4));
}

#[test]
fn two_builds_alike_are_tied_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aa.csv");
    ab_run(&path, &[]);
    let [baseline, candidate] = load_builds(&path, [BASELINE, CANDIDATE]).unwrap();
    let judged = ab::judge(&baseline, &candidate);
    assert!(judged.bands.iter().chain(&judged.cells).all(|change| change.call == Call::Tied), "{judged:?}");
    assert_eq!((judged.bands.len(), judged.cells.len()), (4, 8));
}

/// Two runs of one flat-out plan, the second with kanal `slower` times its first figure and a
/// drift of its own: `compare`'s counts.
fn compared_counts(slower: f64) -> Counts {
    let dir = tempfile::tempdir().unwrap();
    let plan = ["--channels", "kanal,flume", "--runtimes", "current-thread", "--tasks", "1,4", "--samples", "5"];
    let plan = [&plan[..], &["--max-time", "0", "--capacity", "1024"]].concat();
    let (old, new) = (dir.path().join("old.csv"), dir.path().join("new.csv"));
    sweep_to(&old, &plan, &mut Synthetic { drift: 0.002, ..Synthetic::new(&[("kanal", 1.0), ("flume", 1.2)]) });
    let ratios = [("kanal", slower), ("flume", 1.2)];
    sweep_to(&new, &plan, &mut Synthetic { drift: -0.002, jitter: 0.015, ..Synthetic::new(&ratios) });
    let (old, new) = (load(&old).unwrap(), load(&new).unwrap());
    compare(&old, &new).counts
}

#[test]
fn compare_calls_the_slowed_channel_slower_in_every_cell_and_no_other_changed() {
    let unchanged = Counts { no_change: 8, ..Counts::default() };
    assert_eq!(compared_counts(1.0), unchanged);
    assert_eq!(compared_counts(1.5), Counts { slower: 4, no_change: 4, ..Counts::default() });
    assert_eq!(compared_counts(0.6), Counts { faster: 4, no_change: 4, ..Counts::default() });
}

/// A paced sweep of kanal and flume into `path`: 1 and 8 tasks, 8 messages every 40 ms for
/// 240 ms, dropping when full, latency measured, both phases, two samples a cell.
fn paced_run(path: &Path, place: &mut Synthetic) {
    let paced = ["--pace", "40ms", "--duration", "240ms", "--tasks", "1,8", "--send", "try", "--latency"];
    let cells = ["--channels", "kanal,flume", "--runtimes", "multi-thread", "--modes", "cloned-send"];
    let more = ["--phase", "aligned,random", "--samples", "2", "--max-time", "0", "--capacity", "1024"];
    sweep_to(path, &[&paced[..], &cells, &more].concat(), place);
}

#[test]
fn compare_of_two_paced_runs_sets_every_phase_side_by_side_with_verdicts_and_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.csv"), dir.path().join("new.csv"));
    paced_run(&old, &mut Synthetic::new(&[("kanal", 1.0), ("flume", 1.3)]));
    paced_run(&new, &mut Synthetic { jitter: 0.02, ..Synthetic::new(&[("kanal", 1.0), ("flume", 1.3)]) });
    let (old, new) = (load(&old).unwrap(), load(&new).unwrap());
    let (sections, worse) = crate::output::compare::report("old.csv", "new.csv", &compare(&old, &new));
    let text = sections.concat();
    for line in [
        "two runs' pooled p99, larger over smaller: median",
        "two runs' frames overflowed, difference: median",
        "two runs' CPU per delivered message, larger over smaller: median",
    ] {
        assert!(text.contains(line), "{line}: {text}");
        assert!(text.contains("(8 cells)") || line.contains("overflowed"), "{text}");
    }
    let per_cell: Vec<&str> =
        text.lines().filter(|line| line.contains(": p99 ") && line.contains("overflowed")).collect();
    assert_eq!(per_cell.len(), 8, "one line per paced cell, aligned and random apart: {text}");
    let named = |phase: &str| per_cell.iter().filter(|line| line.contains(phase)).count();
    assert_eq!((named("out of phase"), named("in phase")), (4, 4), "{text}");
    assert!(!text.contains("random phase"), "{text}");
    assert_eq!(worse, 0, "the same figures, within their jitter: {text}");
}
