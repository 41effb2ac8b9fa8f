//! A ranking of channels in one band ([`Ranking`]): each channel's [`Entry`], its verdict against
//! the first and the rest of its figures ([`Shape`] for speed, CPU and p99). `recommend` and
//! `paced` rank into it; `careful` reads it.

use super::band::Contender;
use crate::run::workload::Merge;
use crate::stats::verdict::Verdict;

/// One channel's place in a [`Ranking`]: what it was ranked by, its verdict against the first,
/// and `E`, the rest of its figures ([`Shape`] for speed, CPU and p99 per sample; the paced
/// figures for a paced band).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<E = Shape> {
    /// Channel name.
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// The figure ranked, over the band's task counts: the geometric mean of the per-cell
    /// figures (ns/message, CPU ns/message, ns of latency), or the mean share of frames
    /// overflowed.
    pub value: f64,
    /// The verdict on this channel against the ranking's first (`results::noise::verdict`: on
    /// the log scale, from their paired samples where they have them; in points for frames
    /// overflowed); `None` for the first itself, or when the two have too few samples for one.
    pub verdict: Option<Verdict>,
    /// Whether the verdict is a tie: the channel is within the noise of the first.
    pub tied_with_first: bool,
    /// The channel's other figures.
    pub figures: E,
}

/// The spread of a channel's samples over a band, beside its figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// The geometric mean, over the band's task counts, of the per-cell medians.
    pub median: f64,
    /// Whether the samples of one of the channel's cells in the band form more than one
    /// cluster ([`crate::stats::clusters`]).
    pub mixed: bool,
    /// Whether one of the channel's cells in the band has a sample stopped at its bound
    /// ([`crate::results::load::CellSamples::bounded`]): the channel was far behind, its figure over fewer messages.
    pub bounded: bool,
}

impl<E> Entry<E> {
    /// A channel to rank, by `value`, before any verdict.
    pub fn new((channel, merge): Contender, value: f64, figures: E) -> Entry<E> {
        Entry { channel: channel.to_owned(), merge, value, verdict: None, tied_with_first: false, figures }
    }

    /// The channel and its merge: what two rankings' entries of one channel are matched by.
    pub fn id(&self) -> Contender<'_> {
        (self.channel.as_str(), self.merge)
    }

    /// The channel as reports name it (`results::load::channel_label`).
    pub fn label(&self) -> String {
        super::load::channel_label(&self.channel, self.merge)
    }

    /// This channel's figure over the first's, as the verdict measured it (paired where it
    /// could be), with its interval: `(ratio, low, high)`. `None` for the first.
    pub fn ratio(&self) -> Option<(f64, f64, f64)> {
        self.verdict.map(|verdict| (verdict.mean.exp(), verdict.low.exp(), verdict.high.exp()))
    }
}

/// Channels ordered by one metric, lowest (best) first: see [`crate::results::recommend::rank`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking<E = Shape> {
    /// The first, then the channels tied with it, then the others, each by its verdict's
    /// estimate against the first.
    pub entries: Vec<Entry<E>>,
}

impl<E> Ranking<E> {
    /// The channel with the lowest value.
    pub fn first(&self) -> Option<&Entry<E>> {
        self.entries.first()
    }

    /// The first and every channel within the noise of it, in ranking order: one entry when
    /// the first stands alone, none when none is ranked.
    pub fn leaders(&self) -> &[Entry<E>] {
        let tied = self.entries.iter().skip(1).take_while(|entry| entry.tied_with_first).count();
        &self.entries[..self.entries.len().min(1 + tied)]
    }

    /// Whether any channel is within the noise of the first.
    pub fn is_tie(&self) -> bool {
        self.leaders().len() > 1
    }

    /// The runner-up: the second entry, with its verdict against the first; `None` with one
    /// entry or none.
    pub fn runner_up(&self) -> Option<&Entry<E>> {
        self.entries.get(1)
    }

    /// The best channel beyond the noise of the first; `None` when every other channel is tied
    /// with the first or there is none.
    pub fn next(&self) -> Option<&Entry<E>> {
        self.entries.get(self.leaders().len().max(1))
    }
}
