//! The pick a careful user can ship: in each band, the fastest channel whose crate has no
//! known problem ([`crate::registry::ChannelEntry::has_known_problem`]), beside the fastest of
//! all. It is read off the same speed ranking, so its figure and ratio are the ranking's own.

use super::ranking::{Entry, Ranking};
use crate::registry;

/// The fastest channel with no known problem in one band's speed ranking.
#[derive(Debug, Clone, PartialEq)]
pub enum Careful {
    /// The ranking's first has no known problem: the pick is the fastest itself.
    Same,
    /// The fastest channel with no known problem comes later in the ranking.
    Behind {
        /// Its place in the ranking ([`Entry::tied_with_first`] says whether it is tied with
        /// the fastest).
        entry: Entry,
        /// Its figure over the fastest's, as its verdict against the fastest measured it.
        ratio: f64,
    },
    /// Every channel ranked has a known problem, or none is ranked.
    NoneRanked,
}

/// The careful pick of a band's `speed` ranking: its first entry with no [`known_problem`].
pub fn of(speed: &Ranking) -> Careful {
    let Some(first) = speed.first() else { return Careful::NoneRanked };
    match speed.entries.iter().position(|entry| !known_problem(&entry.channel)) {
        Some(0) => Careful::Same,
        Some(at) => {
            let entry = speed.entries[at].clone();
            let ratio = entry.ratio().map_or(entry.value / first.value, |(ratio, ..)| ratio);
            Careful::Behind { entry, ratio }
        }
        None => Careful::NoneRanked,
    }
}

/// Whether the channel named `channel` in a results file has a known problem: its table entry
/// says so; a channel the table does not hold (a user's own) has none known.
pub fn known_problem(channel: &str) -> bool {
    registry::find(channel).is_some_and(registry::ChannelEntry::has_known_problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::ResultsFile;
    use crate::results::load::hand_made;
    use crate::results::recommend::Recommendation;

    /// The recommendations of `file` with its own figures and noise.
    fn recommend(file: &ResultsFile) -> Vec<Recommendation> {
        crate::results::recommend::of_file(file)
    }

    fn steady(around: f64) -> [f64; 5] {
        [around, around * 1.005, around * 0.995, around * 1.002, around * 0.998]
    }

    #[test]
    fn a_caveated_winner_gives_way_to_the_next_channel_with_no_known_problem() {
        // kanal and crossfire carry caveats in the table; flume and tokio-mpsc do not.
        let (fast, second, third, fourth) = (steady(50.0), steady(80.0), steady(100.0), steady(150.0));
        let file = hand_made(&[
            ("kanal", 1, &fast, 0),
            ("crossfire", 1, &second, 0),
            ("flume", 1, &third, 0),
            ("tokio-mpsc", 1, &fourth, 0),
        ]);
        assert!(known_problem("kanal") && known_problem("crossfire"));
        assert!(!known_problem("flume") && !known_problem("tokio-mpsc"));
        let bands = recommend(&file);
        assert_eq!(bands[0].speed.first().unwrap().channel, "kanal");
        let Careful::Behind { entry, ratio } = &bands[0].careful else { panic!("{:?}", bands[0].careful) };
        assert_eq!(entry.channel, "flume");
        assert!((ratio - 2.0).abs() < 0.01, "{ratio}");
        assert!(!entry.tied_with_first);
    }

    #[test]
    fn a_winner_with_no_known_problem_is_the_careful_pick_itself() {
        let file = hand_made(&[("flume", 1, &steady(50.0), 0), ("kanal", 1, &steady(100.0), 0)]);
        let bands = recommend(&file);
        assert_eq!(bands[0].careful, Careful::Same);
    }

    #[test]
    fn a_clean_channel_tied_with_the_winner_is_picked_and_known_as_tied() {
        let file = hand_made(&[("crossfire", 1, &steady(100.0), 0), ("tokio-mpsc", 1, &steady(101.0), 0)]);
        let bands = recommend(&file);
        let Careful::Behind { entry, .. } = &bands[0].careful else { panic!("{:?}", bands[0].careful) };
        assert_eq!(entry.channel, "tokio-mpsc");
        assert!(entry.tied_with_first);
    }

    #[test]
    fn no_clean_channel_or_none_ranked_is_said() {
        let file = hand_made(&[("crossfire", 1, &steady(100.0), 0), ("kanal", 1, &steady(200.0), 0)]);
        assert_eq!(recommend(&file)[0].careful, Careful::NoneRanked);
        let failed = hand_made(&[("flume", 1, &[], 1)]);
        assert_eq!(recommend(&failed)[0].careful, Careful::NoneRanked, "none ranked");
        // A channel the table does not know has no known problem.
        assert!(!known_problem("my-own-channel"));
    }
}
