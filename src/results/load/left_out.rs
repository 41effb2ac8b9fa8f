//! The rows every figure leaves out while they stay in the CSV, each with why: samples
//! disturbed by their own measures (a steal tick, a pacer late in a minority of its cell's
//! samples, CPU or switches far above the cell's others: `stats::disturbed::own`), flat-out
//! samples whose threads another program kept from their cores, paced samples whose pacer fell
//! behind because the host did, samples measured while the machine was slow or fast
//! (`super::machine`), and flat-out samples measured in a disturbed stretch of the sweep.

use std::collections::HashMap;

use super::CellKey;
use super::machine::MachineSpeed;
use crate::results::schema::Record;
use crate::run::measure::RuntimeKind;
use crate::stats::disturbed::{Own, Timed, Why, disturbed, own};
use crate::stats::machine::kept_waiting;

/// How the rows' rounds were measured, which decides whether a slow machine leaves a round out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// One run's own rounds: a slow round's samples are left out (and measured again).
    Own,
    /// One build's half of an A/B run's rounds, the other build's samples taken back to back with
    /// them: a slow stretch slows both builds alike and cancels in their ratio, while leaving it
    /// out of one build's file alone would take a pair's one half.
    Paired,
}

/// Why each row is left out of every figure, if it is; `None` for every row not `ok`. A row's
/// own measures come first, then threads kept from their cores, then a pacer the host held
/// back, then a machine slow or fast (`super::machine`; `Rounds::Paired` leaves none out for it), then
/// the row's neighbours.
/// Also what the rows say of the machine's speed, when they read it.
pub(super) fn left_out_rows(
    rows: &[Record],
    keys: &[CellKey],
    rounds: Rounds,
) -> (Vec<Option<Why>>, Option<MachineSpeed>) {
    let mut why = vec![None; rows.len()];
    disturbed_rows(rows, keys, &mut why);
    let off = match rounds {
        Rounds::Own => super::machine::off_rows(rows, &mut why),
        // Judged for what the rows say of the machine, no row marked.
        Rounds::Paired => super::machine::off_rows(rows, &mut vec![None; rows.len()]),
    };
    host_behind_rows(rows, keys, &mut why);
    waited_rows(rows, &mut why);
    own_rows(rows, keys, &mut why);
    let speed = off.map(|off| off.speed(rows, keys, &why));
    (why, speed)
}

/// Marks each `ok` row disturbed by its own measures against its cell's other `ok` rows
/// (`stats::disturbed::own`). CPU time is judged in paced rows only: their clock is the
/// schedule, while a flat-out row's CPU time follows its own wall time, where a channel's
/// second cluster is no disturbance (the neighbours judge that).
fn own_rows(rows: &[Record], keys: &[CellKey], why: &mut [Option<Why>]) {
    let mut cells: HashMap<&CellKey, Vec<usize>> = HashMap::new();
    for (at, key) in keys.iter().enumerate().filter(|&(at, _)| rows[at].status.is_ok()) {
        cells.entry(key).or_default().push(at);
    }
    for members in cells.values() {
        let measures: Vec<Own> = members.iter().map(|&at| own_measures(&rows[at])).collect();
        for (&at, verdict) in members.iter().zip(own(&measures)) {
            why[at] = verdict.or(why[at]);
        }
    }
}

/// Marks the flat-out `ok` rows whose threads another program kept from their cores
/// (`stats::machine::kept_waiting`), judged per runtime against that runtime's rows: on a host
/// not busy through the run, a sample that waited a tenth of its ready time or more, and a
/// scheduler tick at least. A paced row idles between bursts, so its share of waiting says
/// less; its pacer says it instead.
fn waited_rows(rows: &[Record], why: &mut [Option<Why>]) {
    let mut runtimes: HashMap<RuntimeKind, Vec<usize>> = HashMap::new();
    for at in (0..rows.len()).filter(|&at| rows[at].status.is_ok() && rows[at].pace_ns.is_none()) {
        runtimes.entry(rows[at].runtime).or_default().push(at);
    }
    for members in runtimes.values() {
        let times: Vec<(Option<u64>, Option<u64>)> =
            members.iter().map(|&at| (rows[at].run_delay_ns, rows[at].cpu_ns)).collect();
        for (&at, _) in members.iter().zip(kept_waiting(&times)).filter(|(_, kept)| *kept) {
            why[at] = Some(Why::Waited);
        }
    }
}

/// What `row` recorded of its own disturbance. A row stopped at its bound (`bound_ns`) ran a
/// share of its messages: its switches and run delay are scaled to all of them, so that it is
/// judged beside its cell's rows that ran every message.
fn own_measures(row: &Record) -> Own {
    let share = match (row.bound_ns, row.delivered) {
        (Some(_), Some(delivered)) => row.messages as f64 / delivered.max(1) as f64,
        _ => 1.0,
    };
    let scaled = |value: Option<u64>| value.map(|value| (value as f64 * share) as u64);
    Own {
        steal_ns: row.steal_ns,
        pacer_behind: row.pacer_behind == Some(true),
        cpu_ns: row.cpu_ns.filter(|_| row.pace_ns.is_some()),
        switches: scaled(row.involuntary_switches),
        run_delay_ns: scaled(row.run_delay_ns),
    }
}

/// Marks the `ok` paced rows that fell behind their schedule because the host did: their pacer
/// fell behind in a round where the pacers of at least half the round's channels fell behind
/// too. Such a sample says nothing of its channel, and is left out as a disturbed one is (it
/// stays in the CSV); a pacer that fell behind alone in its round marks its channel.
fn host_behind_rows(rows: &[Record], keys: &[CellKey], why: &mut [Option<Why>]) {
    let ok = |at: &usize| rows[*at].status.is_ok();
    let round_of = |at: usize| Some((keys[at].group(), rows[at].round?));
    let mut rounds: HashMap<(CellKey, u64), (usize, usize)> = HashMap::new();
    for at in (0..rows.len()).filter(ok) {
        if let (Some(round), Some(behind)) = (round_of(at), rows[at].pacer_behind) {
            let entry = rounds.entry(round).or_default();
            entry.0 += usize::from(behind);
            entry.1 += 1;
        }
    }
    for at in (0..rows.len()).filter(ok).filter(|&at| rows[at].pacer_behind == Some(true)) {
        let (behind, all) = round_of(at).and_then(|round| rounds.get(&round).copied()).unwrap_or_default();
        if all >= 2 && 2 * behind >= all {
            why[at] = Some(Why::PacerLate);
        }
    }
}

/// Marks the flat-out `ok` rows measured in a disturbed stretch of the sweep
/// (`stats::disturbed::disturbed`): the rows in file order, which is the order a sweep
/// measured them in, grouped by runtime and worker count. A paced row's ns/message is its
/// schedule, so its neighbours say nothing of it.
fn disturbed_rows(rows: &[Record], keys: &[CellKey], why: &mut [Option<Why>]) {
    let mut cells: HashMap<&CellKey, usize> = HashMap::new();
    let mut groups: HashMap<(RuntimeKind, u64), usize> = HashMap::new();
    let at: Vec<usize> = (0..rows.len()).filter(|&at| rows[at].status.is_ok() && rows[at].pace_ns.is_none()).collect();
    let timed: Vec<Timed> = at
        .iter()
        .map(|&at| {
            let (cell, group) = (cells.len(), groups.len());
            let cell = *cells.entry(&keys[at]).or_insert(cell);
            let group = *groups.entry((keys[at].coord.runtime, keys[at].coord.workers)).or_insert(group);
            Timed { group, cell, value: rows[at].ns_per_message }
        })
        .collect();
    for (at, _) in at.into_iter().zip(disturbed(&timed)).filter(|(_, disturbed)| *disturbed) {
        why[at] = Some(Why::Neighbours);
    }
}
