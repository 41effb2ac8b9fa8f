//! The rounds a slow or fast machine cost, measured again: a round whose samples were left out
//! because the machine read off its typical speed (`results::load::MachineSpeed`) is measured
//! once more, with the same channels, in a later pass of the sweep, once it reads typical again.
//! Those rounds are spent from the same budget as the others: the screening passes and the
//! duels' clock.

use std::collections::{BTreeMap, BTreeSet};

use super::Progress;
use crate::results::load::{CellKey, MachineSpeed, of_rows};
use crate::results::schema::Record;

/// The rounds to measure again now, each with the cells it measured, in round order: every
/// slow or fast round of `machine` not in `replaced` (the rounds measured again already), and
/// none while the machine reads off still ([`MachineSpeed::off_now`]): a round taken then would
/// be lost too. `rows` are every row written so far.
pub(super) fn lost_rounds(
    rows: &[Record],
    machine: &MachineSpeed,
    replaced: &BTreeSet<u64>,
) -> Vec<(u64, Vec<CellKey>)> {
    if machine.off_now {
        return Vec::new();
    }
    let off = machine.slow_rounds.iter().chain(&machine.fast_rounds);
    let lost: BTreeSet<u64> = off.copied().filter(|round| !replaced.contains(round)).collect();
    let mut rounds: BTreeMap<u64, Vec<CellKey>> = BTreeMap::new();
    for row in rows {
        if let Some(round) = row.round.filter(|round| lost.contains(round)) {
            let key = CellKey::of(row);
            let members = rounds.entry(round).or_default();
            if !members.contains(&key) {
                members.push(key);
            }
        }
    }
    rounds.into_iter().collect()
}

/// The rounds the next pass adds to measure again the rounds lost to a slow or fast machine
/// ([`lost_rounds`]), each its cells not finished; the rounds taken go into `replaced`.
pub(super) fn measure_again(cells: &[Progress], rows: &[Record], replaced: &mut BTreeSet<u64>) -> Vec<Vec<usize>> {
    let Some(machine) = of_rows(rows).machine else { return Vec::new() };
    let lost = lost_rounds(rows, &machine, replaced);
    replaced.extend(lost.iter().map(|(round, _)| round));
    let unfinished = |key: &CellKey| cells.iter().position(|progress| progress.key == *key && !progress.finished);
    let members = lost.iter().map(|(_, keys)| keys.iter().filter_map(unfinished).collect::<Vec<usize>>());
    members.filter(|members| !members.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::SampleStatus;

    fn row(channel: &str, tasks: usize, round: u64) -> Record {
        Record { channel: channel.to_owned(), tasks, round: Some(round), status: SampleStatus::Ok, ..Record::default() }
    }

    #[test]
    fn each_slow_or_fast_round_is_measured_again_once_with_its_channels_and_not_while_the_machine_is_off() {
        let rows: Vec<Record> = (1..=6)
            .flat_map(|round| {
                let tasks = 1 << (round % 2);
                [row("a", tasks, round), row("b", tasks, round)]
            })
            .collect();
        let machine = MachineSpeed { rounds: 6, slow_rounds: vec![3], fast_rounds: vec![4], ..MachineSpeed::default() };
        let keys = |tasks: usize| vec![CellKey::of(&row("a", tasks, 0)), CellKey::of(&row("b", tasks, 0))];
        assert_eq!(lost_rounds(&rows, &machine, &BTreeSet::new()), [(3, keys(2)), (4, keys(1))]);
        assert_eq!(lost_rounds(&rows, &machine, &BTreeSet::from([3])), [(4, keys(1))], "round 3 was measured again");
        let off_now = MachineSpeed { off_now: true, ..machine };
        assert!(lost_rounds(&rows, &off_now, &BTreeSet::new()).is_empty(), "the machine is off still: later");
    }
}
