//! The table of channels: each [`Channel`] instantiated with the scenario code that drives it.

use crate::channel::adapters::*;
use crate::channel::{self, Channel};
use crate::run::scenario::{self, Prepare};

/// A channel in the table: its names and the scenario code instantiated for it. Make one of
/// your own channel with [`ChannelEntry::of`] and hand it to `app::main_with`.
#[derive(Debug)]
pub struct ChannelEntry {
    /// [`Channel::NAME`].
    pub name: &'static str,
    /// [`Channel::CRATE`].
    pub crate_name: &'static str,
    /// [`Channel::SLOTS_PER_SENDER`].
    pub slots_per_sender: usize,
    /// Spawns one run of a workload on the current tokio runtime; see [`scenario::prepare`].
    pub prepare: Prepare,
    /// How many messages the channel accepts with no receiver taking any; see [`channel::probe_capacity`].
    pub probe_capacity: fn(capacity: usize, senders: usize) -> usize,
}

impl ChannelEntry {
    /// The table line for channel `C`.
    pub const fn of<C: Channel>() -> Self {
        Self {
            name: C::NAME,
            crate_name: C::CRATE,
            slots_per_sender: C::SLOTS_PER_SENDER,
            prepare: scenario::prepare::<C>,
            probe_capacity: channel::probe_capacity::<C>,
        }
    }

    /// Whether this channel can hold exactly `capacity` messages with `senders` senders.
    pub fn supports(&self, capacity: usize, senders: usize) -> bool {
        capacity >= 1 && capacity >= senders * self.slots_per_sender
    }
}

/// Every channel, in the order the sweep runs them.
pub const CHANNELS: &[ChannelEntry] = &[
    ChannelEntry::of::<TokioMpsc>(),
    ChannelEntry::of::<Flume>(),
    ChannelEntry::of::<AsyncChannel>(),
    ChannelEntry::of::<FuturesChannel>(),
    ChannelEntry::of::<Kanal>(),
    ChannelEntry::of::<Thingbuf>(),
    ChannelEntry::of::<Tachyonix>(),
    ChannelEntry::of::<Crossfire>(),
    ChannelEntry::of::<TokioRecvMany>(),
];

/// Channels that misbehave on purpose, for the harness's own tests (cargo feature `faults`).
#[cfg(feature = "faults")]
pub const FAULTY: &[ChannelEntry] = &[
    ChannelEntry::of::<crate::channel::faults::Hang>(),
    ChannelEntry::of::<crate::channel::faults::Lossy>(),
    ChannelEntry::of::<crate::channel::faults::Reorder>(),
];
/// Channels that misbehave on purpose: none in a normal build.
#[cfg(not(feature = "faults"))]
pub const FAULTY: &[ChannelEntry] = &[];

/// Every channel `--channels` accepts: [`CHANNELS`], then [`FAULTY`].
pub fn known() -> impl Iterator<Item = &'static ChannelEntry> {
    CHANNELS.iter().chain(FAULTY)
}

/// Looks a channel up by its [`Channel::NAME`].
pub fn find(name: &str) -> Option<&'static ChannelEntry> {
    known().find(|entry| entry.name == name)
}
