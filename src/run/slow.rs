//! A known slowdown, for checking what a comparison can resolve (cargo feature `faults`):
//! `CHANNEL_BENCH_SLOW=CHANNEL:PCT%` (several separated by commas: `kanal:15%,flume:15%`) makes
//! the receiving task of channel CHANNEL, once it has taken the last message, spin for PCT% of
//! the time since the start gate opened, so that channel's ns/message rises by PCT% exactly, on
//! either runtime, and no other channel's does. (A spin spread over the messages would overlap
//! with the senders' work where they run on other threads, and slow a multi-thread cell by less
//! than it asks.) `CHANNEL:LOW..HIGH%` draws the share once per process, uniformly between the
//! two: a channel whose speed depends on the process it runs in, as on a host where it matters
//! where a process's memory lands. A normal build has the type and does nothing.

use std::time::Instant;

/// How long the slowdown spins between two yields to the runtime.
const SPIN_SLICE: std::time::Duration = std::time::Duration::from_millis(1);

/// The environment variable that names the slowed channel and its slowdown.
pub const VARIABLE: &str = "CHANNEL_BENCH_SLOW";

/// The busy work a receiving task does: none (always in a normal build), or a spin at the end
/// in proportion to the time its messages took.
#[derive(Debug, Clone, Default)]
pub struct Slowdown {
    /// The time spun over the time worked (0.15 = 15%); 0 for no slowdown.
    fraction: f64,
    /// When the start gate opened.
    started: Option<Instant>,
}

impl Slowdown {
    /// The slowdown of the channel `name`: none unless [`VARIABLE`] names it (faults build).
    pub fn of(name: &str) -> Self {
        let asked = if cfg!(feature = "faults") { requested().unwrap_or_default() } else { Vec::new() };
        let fraction = asked.iter().find(|(channel, _)| channel == name).map_or(0.0, |(_, asked)| asked.here(name));
        Slowdown { fraction, started: None }
    }

    /// Called once the start gate has opened, at `opened`: the time the slowdown is a share of
    /// starts there, not when the runtime first polls the receiver (a sender polled first may
    /// have filled the channel by then).
    pub fn start(&mut self, opened: Instant) {
        if self.fraction > 0.0 {
            self.started = Some(opened);
        }
    }

    /// Called after the last message: spins for the slowdown's share of the time since
    /// [`Slowdown::start`], yielding to the runtime each `SPIN_SLICE` so that a run stopped
    /// at its bound (`super::stop`) stops in the spin too.
    pub async fn finish(&mut self) {
        if let Some(started) = self.started.take() {
            let until = deadline(started, Instant::now(), self.fraction);
            while Instant::now() < until {
                let slice = (Instant::now() + SPIN_SLICE).min(until);
                while Instant::now() < slice {
                    std::hint::spin_loop();
                }
                tokio::task::yield_now().await;
            }
        }
    }
}

/// Spins until the time since `start` is `1 + fraction` times what it was at the call: the
/// share `fraction` of a timed stretch of work, added at its end. Returns at once for 0, which
/// is every call in a normal build ([`Stretch`] is the faults build's).
pub fn stretch(start: Instant, fraction: f64) {
    if fraction <= 0.0 {
        return;
    }
    let until = deadline(start, Instant::now(), fraction);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// The variable that slows the whole machine for a range of rounds (faults build): every
/// sample and every reading of the machine (`super::reading`) of those rounds.
pub const ROUNDS_VARIABLE: &str = "CHANNEL_BENCH_SLOW_ROUNDS";

/// A slow stretch of the machine injected on purpose, as [`ROUNDS_VARIABLE`] asks for it:
/// `FIRST..LAST:PCT%` slows every sample and reading of rounds FIRST to LAST (both counted,
/// from 1) by PCT% of its own time, as a machine slowed for everything at once would.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    /// The first round slowed.
    pub first: u64,
    /// The last round slowed.
    pub last: u64,
    /// The share every sample and reading of those rounds runs longer (1.5 for `150%`).
    pub fraction: f64,
}

impl Stretch {
    /// The share round `round` is slowed by: [`Stretch::fraction`] inside the stretch, 0 outside.
    pub fn at(self, round: u64) -> f64 {
        if (self.first..=self.last).contains(&round) { self.fraction } else { 0.0 }
    }

    /// The stretch [`ROUNDS_VARIABLE`] asks for: `None` when it is unset or empty, and always
    /// in a normal build; `Err` (a line for the user) when it is not `FIRST..LAST:PCT%` with
    /// 1 ≤ FIRST ≤ LAST and PCT above 0 and at most 1000.
    pub fn requested() -> Result<Option<Stretch>, String> {
        let value = std::env::var_os(ROUNDS_VARIABLE).map(|value| value.to_string_lossy().into_owned());
        match value.filter(|value| cfg!(feature = "faults") && !value.is_empty()) {
            Some(value) => Stretch::parse(&value).map(Some).ok_or_else(|| {
                format!("{ROUNDS_VARIABLE}={value:?}: give FIRST..LAST:PCT%, such as 3..8:150%, rounds from 1")
            }),
            None => Ok(None),
        }
    }

    /// `FIRST..LAST:PCT%` read, or `None`.
    fn parse(text: &str) -> Option<Stretch> {
        let (rounds, percent) = text.split_once(':')?;
        let (first, last) = rounds.split_once("..")?;
        let (first, last): (u64, u64) = (first.parse().ok()?, last.parse().ok()?);
        let percent: f64 = percent.strip_suffix('%')?.parse().ok()?;
        let fraction = percent / 100.0;
        (1 <= first && first <= last && percent > 0.0 && percent <= 1000.0).then_some(Stretch { first, last, fraction })
    }
}

/// Until when a receiver that took its last message at `now` spins, the gate having opened at
/// `started`: the `fraction` of the time the messages took.
fn deadline(started: Instant, now: Instant, fraction: f64) -> Instant {
    now + now.duration_since(started).mul_f64(fraction)
}

/// A slowdown [`VARIABLE`] asks for, as fractions of the channel's own cost (0.15 for `15%`):
/// `low` and `high` alike for one share, or the range a process draws its share from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Asked {
    /// The least share.
    pub low: f64,
    /// The most share.
    pub high: f64,
}

impl Asked {
    /// The share of `channel` in this process: the one asked for, or drawn uniformly from the
    /// range once per process and channel (the same for every sample the process takes).
    pub fn here(self, channel: &str) -> f64 {
        use std::hash::BuildHasher;
        static PROCESS: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
        if self.high <= self.low {
            return self.low;
        }
        // The process's own random keys: the same draw for a channel all through the process.
        let hash = PROCESS.get_or_init(std::collections::hash_map::RandomState::new).hash_one(channel);
        let uniform = (hash >> 11) as f64 / (1u64 << 53) as f64;
        self.low + (self.high - self.low) * uniform
    }
}

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.high <= self.low {
            write!(f, "{}%", self.low * 100.0)
        } else {
            write!(f, "{}% to {}%, drawn once per process", self.low * 100.0, self.high * 100.0)
        }
    }
}

/// The channels and the slowdowns [`VARIABLE`] asks for: empty when it is unset or empty,
/// `Err` (a line for the user) when an item is not `CHANNEL:PCT%` with PCT a positive number of
/// percent up to 1000, or `CHANNEL:LOW..HIGH%` with 0 ≤ LOW < HIGH ≤ 1000. Whether each CHANNEL
/// is one the sweep measures is the sweep's to check.
pub fn requested() -> Result<Vec<(String, Asked)>, String> {
    let value = std::env::var_os(VARIABLE).map(|value| value.to_string_lossy().into_owned()).unwrap_or_default();
    let bad =
        |why: &str| format!("{VARIABLE}={value:?}: {why}; give CHANNEL:PCT%, such as kanal:15%, or CHANNEL:LOW..HIGH%");
    let percent = |text: &str| text.parse::<f64>().ok().filter(|percent| (0.0..=1000.0).contains(percent));
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (channel, asked) = item.split_once(':').ok_or_else(|| bad("no colon"))?;
            let asked = asked.strip_suffix('%').ok_or_else(|| bad("no % after the share"))?;
            let (low, high) = asked.split_once("..").unwrap_or((asked, asked));
            let (low, high) = percent(low)
                .zip(percent(high))
                .filter(|&(low, high)| if asked.contains("..") { low < high } else { low > 0.0 })
                .ok_or_else(|| {
                    bad("PCT% is not a percentage above 0 and at most 1000, nor LOW..HIGH% a range in 0..1000")
                })?;
            Ok((channel.to_owned(), Asked { low: low / 100.0, high: high / 100.0 }))
        })
        .collect()
}

#[cfg(test)]
#[cfg(feature = "faults")]
mod tests {
    use super::*;

    #[test]
    fn the_receiver_spins_at_the_end_for_the_share_asked_for_of_the_time_its_messages_took() {
        let started = Instant::now();
        let now = started + std::time::Duration::from_micros(2_000);
        assert_eq!(deadline(started, now, 0.15), now + std::time::Duration::from_micros(300));
        assert_eq!(deadline(started, now, 1.0) - now, now - started, "100%: as long again");
        let mut slowdown = Slowdown { fraction: 0.15, started: None };
        slowdown.start(started);
        assert_eq!(slowdown.started, Some(started), "the share counts from when the gate opened");
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(slowdown.finish());
        assert!(slowdown.started.is_none(), "one spin a sample");
        let mut none = Slowdown { fraction: 0.0, started: None };
        none.start(started);
        assert!(none.started.is_none(), "no slowdown asked: nothing to time");
    }

    #[test]
    fn a_percentage_is_read_and_anything_else_refused() {
        // SAFETY: tests of this module are the only readers of the variable in this process.
        let one = |share: f64| Asked { low: share, high: share };
        unsafe { std::env::set_var(VARIABLE, "kanal:15%") };
        assert_eq!(requested(), Ok(vec![("kanal".to_owned(), one(0.15))]));
        unsafe { std::env::set_var(VARIABLE, "kanal:15%,flume:5%") };
        assert_eq!(requested(), Ok(vec![("kanal".to_owned(), one(0.15)), ("flume".to_owned(), one(0.05))]));
        unsafe { std::env::set_var(VARIABLE, "kanal:0..30%") };
        assert_eq!(requested(), Ok(vec![("kanal".to_owned(), Asked { low: 0.0, high: 0.3 })]));
        for bad in ["kanal", "kanal:15", "kanal:0%", "kanal:fast%", "kanal:30..10%", "kanal:5..5%", "kanal:0..2000%"] {
            unsafe { std::env::set_var(VARIABLE, bad) };
            assert!(requested().unwrap_err().contains("CHANNEL:PCT%"), "{bad}");
        }
        unsafe { std::env::remove_var(VARIABLE) };
    }

    #[test]
    fn a_stretch_adds_its_share_at_the_end_of_the_work_timed_so_far() {
        let start = Instant::now() - std::time::Duration::from_millis(4);
        stretch(start, 0.5);
        assert!(start.elapsed() >= std::time::Duration::from_millis(6), "{:?}", start.elapsed());
        let now = Instant::now();
        stretch(now - std::time::Duration::from_secs(60), 0.0);
        assert!(now.elapsed() < std::time::Duration::from_secs(1), "no share: no spin");
    }

    #[test]
    fn a_slow_stretch_of_rounds_is_read_and_anything_else_refused() {
        let stretch = Stretch::parse("3..8:150%").unwrap();
        assert_eq!(stretch, Stretch { first: 3, last: 8, fraction: 1.5 });
        assert_eq!([stretch.at(2), stretch.at(3), stretch.at(8), stretch.at(9)], [0.0, 1.5, 1.5, 0.0]);
        for bad in ["3..8", "3:150%", "8..3:150%", "0..3:150%", "3..8:0%", "3..8:fast%", "a..8:10%", "3..8:2000%"] {
            assert_eq!(Stretch::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_range_is_drawn_once_per_process_and_channel_inside_it() {
        let range = Asked { low: 0.1, high: 0.3 };
        let kanal = range.here("kanal");
        assert!((0.1..0.3).contains(&kanal), "{kanal}");
        assert_eq!(range.here("kanal"), kanal, "the same share for every sample of the process");
        assert_eq!(Asked { low: 0.15, high: 0.15 }.here("kanal"), 0.15);
        assert_eq!(range.to_string(), "10% to 30%, drawn once per process");
    }
}
