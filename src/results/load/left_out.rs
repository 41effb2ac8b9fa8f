//! The rows every figure leaves out while they stay in the CSV: samples measured in a
//! disturbed stretch of the sweep, and paced samples whose pacer fell behind because the host did.

use std::collections::HashMap;

use super::CellKey;
use crate::results::schema::Record;
use crate::run::measure::RuntimeKind;
use crate::stats::disturbed::{Timed, disturbed};

/// Which `ok` paced rows fell behind their schedule because the host did: their pacer fell
/// behind in a round where the pacers of at least half the round's channels fell behind too.
/// Such a sample says nothing of its channel, and is left out as a disturbed one is (it stays
/// in the CSV); a pacer that fell behind alone in its round marks its channel.
pub(super) fn host_behind_rows(rows: &[Record], keys: &[CellKey]) -> Vec<bool> {
    let round_of = |(record, key): (&Record, &CellKey)| {
        Some((CellKey { channel: String::new(), merge: None, ..key.clone() }, record.round?))
    };
    let mut rounds: HashMap<(CellKey, u64), (usize, usize)> = HashMap::new();
    for (record, key) in rows.iter().zip(keys).filter(|(record, _)| record.status == "ok") {
        if let (Some(round), Some(behind)) = (round_of((record, key)), record.pacer_behind) {
            let entry = rounds.entry(round).or_default();
            entry.0 += usize::from(behind);
            entry.1 += 1;
        }
    }
    rows.iter()
        .zip(keys)
        .map(|(record, key)| {
            record.status == "ok"
                && record.pacer_behind == Some(true)
                && round_of((record, key))
                    .and_then(|round| rounds.get(&round))
                    .is_some_and(|&(behind, all)| all >= 2 && 2 * behind >= all)
        })
        .collect()
}

/// Which `ok` rows were measured in a disturbed stretch of the sweep
/// (`stats::disturbed::disturbed`): the rows in file order, which is the order a sweep
/// measured them in, grouped by runtime and worker count.
pub(super) fn disturbed_rows(rows: &[Record], keys: &[CellKey]) -> Vec<bool> {
    let mut cells: HashMap<&CellKey, usize> = HashMap::new();
    let mut groups: HashMap<(RuntimeKind, u64), usize> = HashMap::new();
    let (mut timed, mut at) = (Vec::new(), Vec::new());
    for (index, (record, key)) in rows.iter().zip(keys).enumerate().filter(|(_, (record, _))| record.status == "ok") {
        let cell = cells.len();
        let cell = *cells.entry(key).or_insert(cell);
        let group = groups.len();
        let group = *groups.entry((key.runtime, key.workload.workers)).or_insert(group);
        timed.push(Timed { group, cell, value: record.ns_per_message });
        at.push(index);
    }
    let mut flags = vec![false; rows.len()];
    for (index, flag) in at.into_iter().zip(disturbed(&timed)) {
        flags[index] = flag;
    }
    flags
}
