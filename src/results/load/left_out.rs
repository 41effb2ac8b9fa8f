//! The rows every figure leaves out while they stay in the CSV, each with why: samples
//! disturbed by their own measures (a steal tick, a pacer late in a minority of its cell's
//! samples, CPU or switches far above the cell's others: `stats::disturbed::own`), paced samples
//! whose pacer fell behind because the host did, and flat-out samples measured in a disturbed
//! stretch of the sweep.

use std::collections::HashMap;

use super::CellKey;
use crate::results::schema::Record;
use crate::run::measure::RuntimeKind;
use crate::stats::disturbed::{Own, Timed, Why, disturbed, own};

/// Why each row is left out of every figure, if it is; `None` for every row not `ok`.
pub(super) fn left_out_rows(rows: &[Record], keys: &[CellKey]) -> Vec<Option<Why>> {
    let (own, host_behind, neighbours) =
        (own_rows(rows, keys), host_behind_rows(rows, keys), disturbed_rows(rows, keys));
    (0..rows.len())
        .map(|at| own[at].or(host_behind[at].then_some(Why::PacerLate)).or(neighbours[at].then_some(Why::Neighbours)))
        .collect()
}

/// Why each `ok` row is disturbed by its own measures against its cell's other `ok` rows
/// (`stats::disturbed::own`). CPU time is judged in paced rows only: their clock is the
/// schedule, while a flat-out row's CPU time follows its own wall time, where a channel's
/// second cluster is no disturbance (the neighbours judge that).
fn own_rows(rows: &[Record], keys: &[CellKey]) -> Vec<Option<Why>> {
    let mut cells: HashMap<&CellKey, Vec<usize>> = HashMap::new();
    for (at, key) in keys.iter().enumerate().filter(|&(at, _)| rows[at].status == "ok") {
        cells.entry(key).or_default().push(at);
    }
    let mut why = vec![None; rows.len()];
    for members in cells.values() {
        let measures: Vec<Own> = members
            .iter()
            .map(|&at| Own {
                steal_ns: rows[at].steal_ns,
                pacer_behind: rows[at].pacer_behind == Some(true),
                cpu_ns: rows[at].cpu_ns.filter(|_| rows[at].pace_ns.is_some()),
                switches: rows[at].involuntary_switches,
            })
            .collect();
        for (&at, verdict) in members.iter().zip(own(&measures)) {
            why[at] = verdict;
        }
    }
    why
}

/// Which `ok` paced rows fell behind their schedule because the host did: their pacer fell
/// behind in a round where the pacers of at least half the round's channels fell behind too.
/// Such a sample says nothing of its channel, and is left out as a disturbed one is (it stays
/// in the CSV); a pacer that fell behind alone in its round marks its channel.
fn host_behind_rows(rows: &[Record], keys: &[CellKey]) -> Vec<bool> {
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

/// Which flat-out `ok` rows were measured in a disturbed stretch of the sweep
/// (`stats::disturbed::disturbed`): the rows in file order, which is the order a sweep
/// measured them in, grouped by runtime and worker count. A paced row's ns/message is its
/// schedule, so its neighbours say nothing of it.
fn disturbed_rows(rows: &[Record], keys: &[CellKey]) -> Vec<bool> {
    let mut cells: HashMap<&CellKey, usize> = HashMap::new();
    let mut groups: HashMap<(RuntimeKind, u64), usize> = HashMap::new();
    let (mut timed, mut at) = (Vec::new(), Vec::new());
    for (index, (record, key)) in
        rows.iter().zip(keys).enumerate().filter(|(_, (record, _))| record.status == "ok" && record.pace_ns.is_none())
    {
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
