//! Where capacity matters: a band measured at several capacities, read across them from the
//! rankings `recommend` made at each ([`across`]). No new statistic: every ratio is a verdict
//! one capacity's ranking already holds.

use std::collections::BTreeSet;

use super::band::Band;
use super::careful::known_problem;
use super::recommend::{Entry, Recommendation};
use crate::run::workload::Capacity;
use crate::stats::verdict::{Call, Verdict};

/// One band (runtime, workers, mode, setting, task counts) at every capacity the file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct AcrossCapacities {
    /// The band, as the first capacity's ranking names it.
    pub band: Band,
    /// Each capacity's pick (the fastest), in file order.
    pub picks: Vec<(Capacity, String)>,
    /// The channel with no known problem, ranked at every capacity, whose ratio to each
    /// capacity's fastest is smallest in the worst case; `None` when no such channel is ranked
    /// at every capacity.
    pub holds: Option<Holds>,
    /// Where another capacity's pick is behind this capacity's beyond the noise: the pick
    /// changes with capacity. Empty when every capacity's pick is tied with the others' there.
    pub changes: Vec<Change>,
}

/// A pick that holds at every capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct Holds {
    /// The channel.
    pub channel: String,
    /// The capacity where it is farthest behind that capacity's fastest.
    pub worst_at: Capacity,
    /// Its verdict against that capacity's fastest there (`None` where it is the fastest at
    /// every capacity).
    pub worst: Option<Verdict>,
    /// Whether it is the fastest or tied with it at every capacity.
    pub within_noise_everywhere: bool,
}

/// A capacity where another capacity's pick is behind this one's beyond the noise.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The capacity.
    pub at: Capacity,
    /// Its pick.
    pub pick: String,
    /// The other capacity's pick.
    pub other: String,
    /// The other's verdict against the pick, at this capacity.
    pub verdict: Verdict,
}

/// The bands of `bands` measured at two capacities or more, in the order they first appear.
pub fn across(bands: &[Recommendation]) -> Vec<AcrossCapacities> {
    let same = |a: &Recommendation, b: &Recommendation| a.band.same_but_capacity(&b.band);
    let mut out = Vec::new();
    for (first, band) in bands.iter().enumerate().filter(|(_, band)| band.band.capacity.is_some()) {
        let at: Vec<&Recommendation> =
            bands.iter().filter(|other| same(other, band) && other.speed.first().is_some()).collect();
        if at.len() < 2 || bands[..first].iter().any(|other| other.band.capacity.is_some() && same(other, band)) {
            continue;
        }
        let capacity = |band: &Recommendation| band.band.capacity.unwrap_or_default();
        let picks: Vec<(Capacity, String)> = at.iter().map(|b| (capacity(b), b.speed.entries[0].label())).collect();
        let others: BTreeSet<&String> = picks.iter().map(|(_, pick)| pick).collect();
        let mut changes = Vec::new();
        for b in &at {
            let pick = &b.speed.entries[0];
            for other in others.iter().filter(|other| ***other != pick.label()) {
                let entry = b.speed.entries.iter().find(|entry| entry.label() == **other);
                if let Some(verdict) = entry.and_then(|entry| entry.verdict).filter(|v| v.call == Call::Higher) {
                    changes.push(Change { at: capacity(b), pick: pick.label(), other: (*other).clone(), verdict });
                }
            }
        }
        out.push(AcrossCapacities { band: band.band.clone(), holds: holds(&at), picks, changes });
    }
    out
}

/// The channel with no known problem whose worst ratio to a capacity's fastest is smallest.
fn holds<'a>(at: &[&'a Recommendation]) -> Option<Holds> {
    let log_ratio = |entry: &Entry| entry.verdict.map_or(0.0, |verdict| verdict.mean);
    let candidates = at[0].speed.entries.iter().filter(|entry| !known_problem(&entry.channel));
    let scored = candidates.filter_map(|candidate| {
        let find = |band: &'a Recommendation| band.speed.entries.iter().find(|e| e.label() == candidate.label());
        let places: Vec<(Capacity, &Entry)> =
            at.iter().map(|band| Some((band.band.capacity.unwrap_or_default(), find(band)?))).collect::<Option<_>>()?;
        let &(worst_at, worst) = places.iter().max_by(|a, b| log_ratio(a.1).total_cmp(&log_ratio(b.1)))?;
        let within_noise_everywhere = places.iter().all(|(_, entry)| entry.verdict.is_none() || entry.tied_with_first);
        let holds = Holds { channel: candidate.label(), worst_at, worst: worst.verdict, within_noise_everywhere };
        Some((log_ratio(worst), holds))
    });
    scored.reduce(|best, next| if next.0 < best.0 { next } else { best }).map(|(_, holds)| holds)
}
