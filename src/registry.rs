//! The table of channels: each [`Channel`] instantiated with the scenario code that drives it.

use crate::channel::adapters::*;
use crate::channel::{self, Channel};
use crate::run::memory::{self, Memory};
use crate::run::scenario::{self, Prepare};

/// A channel in the table: its names and the scenario code instantiated for it. Make one of
/// your own channel with [`ChannelEntry::of`] and hand it to `app::main_with`.
#[derive(Debug)]
pub struct ChannelEntry {
    /// [`Channel::NAME`].
    pub name: &'static str,
    /// [`Channel::CRATE`].
    pub crate_name: &'static str,
    /// [`Channel::VERSION`].
    pub crate_version: Option<&'static str>,
    /// [`Channel::SLOTS_PER_SENDER`].
    pub slots_per_sender: usize,
    /// Spawns one run of a workload on the current tokio runtime; see [`scenario::prepare`].
    pub prepare: Prepare,
    /// How many messages the channel accepts with no receiver taking any; see [`channel::probe_capacity`].
    pub probe_capacity: fn(capacity: usize, senders: usize) -> usize,
    /// The heap its channels hold at rest, in a burst and after it; see [`memory::memory`].
    pub memory: Memory,
    /// The crate's known safety and liveness problems, shown wherever the channel is ranked.
    pub caveats: &'static [Caveat],
    /// Whether the crate's issue tracker has been read for known problems ([`CAVEATS_CHECKED`]):
    /// set by [`ChannelEntry::with_caveats`]; without it, no caveat means none looked for, and
    /// the answer marks the channel with `‡`.
    pub caveats_checked: bool,
    /// [`Channel::set_up`].
    pub set_up: fn(),
    /// [`Channel::SETUP`].
    pub setup: &'static str,
}

/// A known problem of a channel's crate, reported upstream or shown here, that a user should
/// weigh beside its figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caveat {
    /// One line: what goes wrong, and whether the benchmark is exposed to it.
    pub text: &'static str,
    /// Its source: the upstream issue, pull request or commit, or the source line it concerns.
    pub link: &'static str,
    /// The crate versions it is known to apply to, as a requirement [`Caveat::applies_to`] reads:
    /// comparators (`=`, `>=`, `<=`, `>`, `<` and a `major.minor.patch` version) joined by `, `,
    /// all of which must hold. Its upper end is the newest version checked, so a test fails when
    /// Cargo.lock moves past it and the caveat has to be read again.
    pub versions: &'static str,
    /// Whether it is shown here or only reported upstream.
    pub evidence: Evidence,
}

/// How a [`Caveat`] is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Shown here by a test, named `file::function` (`tests/caveats.rs::…`), that fails once the
    /// problem is gone.
    Reproduced {
        /// The test that shows it.
        test: &'static str,
    },
    /// Reported upstream ([`Caveat::link`]), not reproduced here.
    ReportedUpstream,
}

impl Evidence {
    /// `reproduced here (tests/caveats.rs::name)` or `reported upstream`.
    pub fn label(&self) -> String {
        match self {
            Self::Reproduced { test } => format!("reproduced here ({test})"),
            Self::ReportedUpstream => "reported upstream".to_owned(),
        }
    }
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

    /// Whether `version` (`major.minor.patch`) meets [`Caveat::versions`]; `None` when either
    /// does not parse.
    pub fn applies_to(&self, version: &str) -> Option<bool> {
        let version = parse_version(version)?;
        self.versions.split(", ").try_fold(true, |all, comparator| {
            let (operator, bound) = comparator.find(|c: char| c.is_ascii_digit()).map(|at| comparator.split_at(at))?;
            let order = version.cmp(&parse_version(bound)?);
            let holds = match operator {
                "=" => order.is_eq(),
                ">=" => order.is_ge(),
                "<=" => order.is_le(),
                ">" => order.is_gt(),
                "<" => order.is_lt(),
                _ => return None,
            };
            Some(all && holds)
        })
    }
}

/// `major.minor.patch` as numbers; `None` for anything else (a pre-release included).
fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.trim().split('.').map(|part| part.parse::<u64>().ok());
    let parsed = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(parsed)
}

/// The version of `crate_name` that Cargo.lock held when the binary was built (`build.rs`
/// records every locked package); `None` if it is not there, every one if several are.
pub fn locked_versions(crate_name: &str) -> Vec<&'static str> {
    env!("CHANNEL_BENCH_LOCKED")
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| *name == crate_name)
        .map(|(_, version)| version)
        .collect()
}

/// [`locked_versions`] as one text: several joined by `, `, `unknown` when the crate is not in
/// Cargo.lock (a channel of your own built elsewhere).
pub fn locked_version(crate_name: &str) -> String {
    let versions = locked_versions(crate_name);
    if versions.is_empty() { "unknown".to_owned() } else { versions.join(", ") }
}

/// The crate of the runtime every channel runs on; its version belongs beside every answer.
pub const RUNTIME_CRATE: &str = "tokio";

/// When the crates' issue trackers were last searched for [`ChannelEntry::caveats`].
pub const CAVEATS_CHECKED: &str = "November 2026";

impl ChannelEntry {
    /// The table line for channel `C`.
    pub const fn of<C: Channel>() -> Self {
        Self {
            name: C::NAME,
            crate_name: C::CRATE,
            crate_version: C::VERSION,
            slots_per_sender: C::SLOTS_PER_SENDER,
            prepare: scenario::prepare::<C>,
            probe_capacity: channel::probe_capacity::<C>,
            memory: memory::memory::<C>,
            caveats: &[],
            caveats_checked: false,
            set_up: C::set_up,
            setup: C::SETUP,
        }
    }

    /// The same line with `caveats`, all that reading its crate's issue tracker found (`&[]`
    /// when it found none): [`ChannelEntry::caveats_checked`].
    pub const fn with_caveats(self, caveats: &'static [Caveat]) -> Self {
        Self { caveats, caveats_checked: true, ..self }
    }

    /// The locked version of [`ChannelEntry::crate_name`] ([`locked_version`]), or the one the
    /// channel states ([`Channel::VERSION`]) where Cargo.lock does not hold its crate.
    pub fn version(&self) -> String {
        match (locked_versions(self.crate_name).is_empty(), self.crate_version) {
            (true, Some(version)) => version.to_owned(),
            _ => locked_version(self.crate_name),
        }
    }

    /// Whether the channel has a known problem: a caveat whose range holds the locked version
    /// of its crate (or any caveat, when that version cannot be read). The "no known problem"
    /// pick skips these channels.
    pub fn has_known_problem(&self) -> bool {
        let versions = locked_versions(self.crate_name);
        self.caveats.iter().any(|caveat| {
            versions.is_empty() || versions.iter().any(|version| caveat.applies_to(version) != Some(false))
        })
    }

    /// Why this channel cannot hold exactly `capacity` messages with `senders` senders, or `None`
    /// when it can: a crate that reserves slots per sender cannot make a channel smaller than its
    /// senders' reserve.
    pub fn refusal(&self, capacity: usize, senders: usize) -> Option<String> {
        let needed = senders * self.slots_per_sender;
        (capacity < 1 || capacity < needed).then(|| {
            format!(
                "{} reserves {} slot(s) per sender: {senders} sender(s) need {needed} slots, its channel has {capacity}",
                self.name, self.slots_per_sender
            )
        })
    }
}

/// Every channel, in the order the sweep runs them.
pub const CHANNELS: &[ChannelEntry] = &[
    ChannelEntry::of::<TokioMpsc>().with_caveats(&[]),
    ChannelEntry::of::<Flume>().with_caveats(&[]),
    ChannelEntry::of::<AsyncChannel>().with_caveats(&[]),
    ChannelEntry::of::<FuturesChannel>().with_caveats(&[]),
    ChannelEntry::of::<Kanal>().with_caveats(&[Caveat {
        text: "its own stream (ReceiveStream) corrupts the heap when polled again while pending, as \
               buffer_unordered and StreamMap do; fixed on its main branch, not in a release; the adapter \
               streams `recv` instead",
        link: "https://github.com/fereidani/kanal/issues/63",
        versions: "=0.1.1",
        evidence: Evidence::ReportedUpstream,
    }]),
    ChannelEntry::of::<Thingbuf>().with_caveats(&[Caveat {
        text: "a slot a sender has claimed but not yet written holds up the receiver",
        link: "https://github.com/hawkw/thingbuf/issues/88",
        versions: "=0.1.6",
        evidence: Evidence::ReportedUpstream,
    }]),
    ChannelEntry::of::<Tachyonix>().with_caveats(&[]),
    ChannelEntry::of::<Crossfire>().with_caveats(&[
        Caveat {
            text: "AsyncRx and MAsyncTx are Send whatever the item type (unsafe impl Send with no bound): safe \
                   code can move an Rc to another thread",
            link: "https://docs.rs/crossfire/3.1.22/src/crossfire/async_tx.rs.html#75",
            versions: "=3.1.22",
            evidence: Evidence::Reproduced {
                test: "tests/caveats.rs::crossfire_async_rx_and_tx_are_send_for_an_item_that_is_not",
            },
        },
        Caveat {
            text: "hangs reported in its own stress tests, mostly on ARM or weak memory",
            link: "https://github.com/frostyplanet/crossfire-rs/issues/34",
            versions: ">=3.0.0, <=3.1.22",
            evidence: Evidence::ReportedUpstream,
        },
    ]),
    ChannelEntry::of::<TokioRecvMany>().with_caveats(&[]),
    ChannelEntry::of::<Loole>(),
    ChannelEntry::of::<Rapidfire>(),
    ChannelEntry::of::<Asyncband>(),
    ChannelEntry::of::<Fibre>(),
    ChannelEntry::of::<BatchChannel>(),
];

/// Channels that misbehave on purpose, for the harness's own tests (cargo feature `faults`):
/// the harness's own code, with no tracker of their own to read.
#[cfg(feature = "faults")]
pub const FAULTY: &[ChannelEntry] = &[
    ChannelEntry::of::<crate::channel::faults::Faulty<crate::channel::faults::Hang>>().with_caveats(&[]),
    ChannelEntry::of::<crate::channel::faults::Faulty<crate::channel::faults::Lossy>>().with_caveats(&[]),
    ChannelEntry::of::<crate::channel::faults::Reorder>().with_caveats(&[]),
    ChannelEntry::of::<crate::channel::faults::Faulty<crate::channel::faults::Leaky>>().with_caveats(&[]),
    ChannelEntry::of::<crate::channel::faults::Faulty<crate::channel::faults::Crash>>().with_caveats(&[]),
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

/// The variable that, set to `none`, leaves every crate as it comes (no [`Channel::set_up`]):
/// to measure what a setup changes (`ab --baseline-env CHANNEL_BENCH_CRATE_SETUP=none`).
pub const SETUP_VARIABLE: &str = "CHANNEL_BENCH_CRATE_SETUP";

/// Sets up every channel of `channels` as its crate's docs advise, once per process before any
/// channel is made, unless [`SETUP_VARIABLE`] is `none`.
pub fn set_up<'a>(channels: impl IntoIterator<Item = &'a ChannelEntry>) {
    if !setup_left_out() {
        channels.into_iter().for_each(|channel| (channel.set_up)());
    }
}

/// What [`set_up`] does for each crate of `channels`, for the run's JSON: its setup, `none
/// advised`, or `left out (…)` under [`SETUP_VARIABLE`].
pub fn setups<'a>(channels: impl IntoIterator<Item = &'a ChannelEntry>) -> std::collections::BTreeMap<String, String> {
    let said = |channel: &ChannelEntry| match channel.setup {
        "" => "none advised".to_owned(),
        setup if setup_left_out() => format!("left out ({SETUP_VARIABLE}=none): {setup}"),
        setup => setup.to_owned(),
    };
    channels.into_iter().map(|channel| (channel.crate_name.to_owned(), said(channel))).collect()
}

fn setup_left_out() -> bool {
    std::env::var(SETUP_VARIABLE).is_ok_and(|value| value == "none")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caveat(versions: &'static str) -> Caveat {
        Caveat { text: "", link: "", versions, evidence: Evidence::ReportedUpstream }
    }

    #[test]
    fn a_version_requirement_is_every_comparator_at_once() {
        let range = caveat(">=3.0.0, <=3.1.22");
        assert_eq!(range.applies_to("3.1.22"), Some(true));
        assert_eq!(range.applies_to("3.0.0"), Some(true));
        assert_eq!(range.applies_to("3.1.23"), Some(false));
        assert_eq!(range.applies_to("2.9.9"), Some(false));
        // Numbers, not text: 3.10 comes after 3.9.
        assert_eq!(caveat("<3.10.0").applies_to("3.9.0"), Some(true));
        assert_eq!(caveat("=0.1.1").applies_to("0.1.1"), Some(true));
        assert_eq!(caveat("=0.1.1").applies_to("0.1.2"), Some(false));
        assert_eq!(caveat(">0.1.1, <0.2.0").applies_to("0.1.9"), Some(true));
    }

    #[test]
    fn what_does_not_parse_is_none_not_a_guess() {
        assert_eq!(caveat("~0.1.1").applies_to("0.1.1"), None);
        assert_eq!(caveat("0.1.1").applies_to("0.1.1"), None);
        assert_eq!(caveat("=0.1").applies_to("0.1.1"), None);
        assert_eq!(caveat("=0.1.1").applies_to("0.2.0-beta1"), None);
        assert_eq!(caveat("=0.1.1").applies_to("0.1.1.4"), None);
    }

    #[test]
    fn a_channel_has_a_known_problem_only_through_a_caveat() {
        for channel in CHANNELS {
            assert_eq!(channel.has_known_problem(), !channel.caveats.is_empty(), "{}", channel.name);
        }
        const BEFORE: &[Caveat] =
            &[Caveat { text: "", link: "", versions: "<1.0.0", evidence: Evidence::ReportedUpstream }];
        const SINCE: &[Caveat] =
            &[Caveat { text: "", link: "", versions: ">=1.0.0", evidence: Evidence::ReportedUpstream }];
        let outside = ChannelEntry::of::<TokioMpsc>().with_caveats(BEFORE);
        assert!(!outside.has_known_problem(), "a caveat that does not cover the locked tokio");
        let inside = ChannelEntry::of::<TokioMpsc>().with_caveats(SINCE);
        assert!(inside.has_known_problem());
    }
}
