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
    /// The crate's known safety and liveness problems, shown wherever the channel is ranked.
    pub caveats: &'static [Caveat],
}

/// A known problem of a channel's crate, reported upstream or found here, that a user should
/// weigh beside its figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caveat {
    /// One line: what goes wrong, and whether the benchmark is exposed to it.
    pub text: &'static str,
    /// Where it is reported or can be seen (an issue, a pull request, the source).
    pub link: &'static str,
    /// The crate versions it applies to.
    pub versions: &'static str,
}

impl Caveat {
    /// A short name for [`Caveat::link`]: `kanal#63` for a GitHub issue or pull request,
    /// `crossfire async_tx.rs` for a source file, otherwise the address itself.
    pub fn link_label(&self) -> String {
        let parts: Vec<&str> = self.link.trim_end_matches('/').split('/').collect();
        match parts.as_slice() {
            [.., repo, "issues" | "pull", number] => format!("{repo}#{number}"),
            [_, _, "docs.rs", krate, _, "src", .., file] => {
                format!("{krate} {}", file.split('#').next().unwrap_or(file).trim_end_matches(".html"))
            }
            _ => self.link.to_owned(),
        }
    }
}

/// When the crates' issue trackers were last searched for [`ChannelEntry::caveats`].
pub const CAVEATS_CHECKED: &str = "November 2026";

impl ChannelEntry {
    /// The table line for channel `C`.
    pub const fn of<C: Channel>() -> Self {
        Self {
            name: C::NAME,
            crate_name: C::CRATE,
            slots_per_sender: C::SLOTS_PER_SENDER,
            prepare: scenario::prepare::<C>,
            probe_capacity: channel::probe_capacity::<C>,
            caveats: &[],
        }
    }

    /// The same line with `caveats`.
    pub const fn with_caveats(self, caveats: &'static [Caveat]) -> Self {
        Self { caveats, ..self }
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
    ChannelEntry::of::<Kanal>().with_caveats(&[Caveat {
        text: "its own stream (ReceiveStream) corrupts the heap when polled again while pending; the adapter streams \
               `recv` instead",
        link: "https://github.com/fereidani/kanal/issues/63",
        versions: "0.1.1 and 0.2.0-beta1, fixed on the main branch only",
    }]),
    ChannelEntry::of::<Thingbuf>().with_caveats(&[
        Caveat {
            text: "a slot a sender has claimed but not yet written holds up the receiver",
            link: "https://github.com/hawkw/thingbuf/issues/88",
            versions: "0.1.6",
        },
        Caveat {
            text: "hang or allocator crash when a blocking channel closes while a RecvRef is held (blocking API, \
                   not used here)",
            link: "https://github.com/hawkw/thingbuf/issues/100",
            versions: "0.1.6, open",
        },
    ]),
    ChannelEntry::of::<Tachyonix>().with_caveats(&[Caveat {
        text: "senders reported not woken when the receiver is closed (a user replaced it with tokio's mpsc); \
               no upstream issue, not reproduced here",
        link: "https://github.com/EasyTier/EasyTier/pull/1483",
        versions: "0.3.1",
    }]),
    ChannelEntry::of::<Crossfire>().with_caveats(&[
        Caveat {
            text: "AsyncRx and MAsyncTx are Send whatever the item type (unsafe impl Send with no bound): safe \
                   code can move an Rc to another thread",
            link: "https://docs.rs/crossfire/3.1.22/src/crossfire/async_tx.rs.html#75",
            versions: "3.1.22",
        },
        Caveat {
            text: "hangs reported in its own stress tests, mostly on ARM or weak memory",
            link: "https://github.com/frostyplanet/crossfire-rs/issues/34",
            versions: "3.x, open",
        },
    ]),
    ChannelEntry::of::<TokioRecvMany>(),
];

/// Channels that misbehave on purpose, for the harness's own tests (cargo feature `faults`).
#[cfg(feature = "faults")]
pub const FAULTY: &[ChannelEntry] = &[
    ChannelEntry::of::<crate::channel::faults::Hang>(),
    ChannelEntry::of::<crate::channel::faults::Lossy>(),
    ChannelEntry::of::<crate::channel::faults::Reorder>(),
    ChannelEntry::of::<crate::channel::faults::Leaky>(),
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
