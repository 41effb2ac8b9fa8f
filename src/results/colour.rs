//! The one owner of each channel's colour: the HTML report's plots use [`of`], and the binary
//! writes it into every cell of `X.cells.json`, which plot.py draws with, so a channel has the
//! same colour in the report and the PNG, and in every run.

use crate::registry;

/// The colours of [`registry::CHANNELS`] in table order, one per channel: a channel added to
/// the table without a colour here does not compile.
const PALETTE: [&str; registry::CHANNELS.len()] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#393b79", "#e6ab02",
    "#1b9e77", "#000000", "#a6d854", "#b15928",
];

/// Colours of channels the table does not hold, chosen by a hash of the name.
const FALLBACK: [&str; 6] = ["#7f7f7f", "#bcbd22", "#843c39", "#637939", "#e7969c", "#6b6ecf"];

/// A channel's colour as `#rrggbb`, the same in every report and every process: its place in
/// the table, or for a channel the table does not hold (a user's own) a hash of its name. A
/// merge strategy shares its channel's colour.
pub fn of(channel: &str) -> &'static str {
    match registry::CHANNELS.iter().position(|entry| entry.name == channel).and_then(|at| PALETTE.get(at)) {
        Some(colour) => colour,
        None => {
            // FNV-1a: stable across processes and builds, unlike std's hasher.
            let hash =
                channel.bytes().fold(2_166_136_261_u32, |hash, byte| (hash ^ u32::from(byte)).wrapping_mul(16_777_619));
            FALLBACK[hash as usize % FALLBACK.len()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_channels_have_distinct_colours_and_others_a_stable_one() {
        let known: Vec<&str> = registry::CHANNELS.iter().map(|entry| of(entry.name)).collect();
        assert!(known.iter().all(|colour| !FALLBACK.contains(colour)), "{known:?}");
        let mut distinct = known.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), known.len(), "{known:?}");
        assert!(FALLBACK.contains(&of("my-own-channel")));
        assert_eq!(of("my-own-channel"), of("my-own-channel"));
    }
}
