//! A known slowdown, for checking what a comparison can resolve (cargo feature `faults`):
//! `CHANNEL_BENCH_SLOW=CHANNEL:PCT%` (several separated by commas: `kanal:15%,flume:15%`) makes
//! the receiving task of channel CHANNEL busy for PCT%
//! of the time its messages take, so that channel's ns/message rises by about PCT% and no other
//! channel's does. Every [`BATCH`] messages the receiver reads the clock, takes the time since
//! the last batch ended (its own spinning left out) and spins for PCT% of it: a slowdown in
//! proportion to the channel's own cost, whatever that is on this machine, with one clock read
//! per batch. A normal build has the type and does nothing.

#[cfg(feature = "faults")]
use std::time::Instant;

/// The environment variable that names the slowed channel and its slowdown.
pub const VARIABLE: &str = "CHANNEL_BENCH_SLOW";

/// Messages between two readings of the clock.
#[cfg(feature = "faults")]
const BATCH: u32 = 256;

/// The busy work a receiving task does: none, or (faults build) a spin in proportion to the
/// time its messages take.
#[derive(Debug, Clone, Default)]
pub struct Slowdown {
    /// The time spun over the time worked (0.15 = 15%); 0 for no slowdown.
    #[cfg(feature = "faults")]
    fraction: f64,
    /// Messages taken since the last reading of the clock.
    #[cfg(feature = "faults")]
    taken: u32,
    /// When the last batch's spin ended.
    #[cfg(feature = "faults")]
    mark: Option<Instant>,
}

impl Slowdown {
    /// The slowdown of the channel `name`: none unless [`VARIABLE`] names it (faults build).
    pub fn of(name: &str) -> Self {
        #[cfg(feature = "faults")]
        {
            let asked = requested().unwrap_or_default();
            Slowdown::by(asked.iter().find(|(channel, _)| channel == name).map_or(0.0, |(_, fraction)| *fraction))
        }
        #[cfg(not(feature = "faults"))]
        {
            let _ = name;
            Slowdown {}
        }
    }

    /// A slowdown of `fraction` (0.15 = 15%) of the time the messages take.
    #[cfg(feature = "faults")]
    pub fn by(fraction: f64) -> Self {
        Slowdown { fraction, taken: 0, mark: None }
    }

    /// Called once per message taken: every [`BATCH`] messages, spins for the slowdown's share
    /// of the time since the last batch ended.
    #[inline(always)]
    pub fn spin(&mut self) {
        #[cfg(feature = "faults")]
        if self.fraction > 0.0 {
            self.taken += 1;
            if self.taken >= BATCH {
                self.taken = 0;
                let now = Instant::now();
                if let Some(mark) = self.mark {
                    let until = now + now.duration_since(mark).mul_f64(self.fraction);
                    while Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    self.mark = Some(until.max(Instant::now()));
                } else {
                    self.mark = Some(now);
                }
            }
        }
    }
}

/// The channels and the slowdowns [`VARIABLE`] asks for, each as a fraction (0.15 for `15%`):
/// empty when it is unset or empty, `Err` (a line for the user) when an item is not
/// `CHANNEL:PCT%` with PCT a positive number of percent up to 1000. Whether each CHANNEL is one
/// the sweep measures is the sweep's to check.
#[cfg(feature = "faults")]
pub fn requested() -> Result<Vec<(String, f64)>, String> {
    let value = std::env::var_os(VARIABLE).map(|value| value.to_string_lossy().into_owned()).unwrap_or_default();
    let bad = |why: &str| format!("{VARIABLE}={value:?}: {why}; give CHANNEL:PCT%, such as kanal:15%");
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (channel, percent) = item.split_once(':').ok_or_else(|| bad("no colon"))?;
            let percent: f64 = percent
                .strip_suffix('%')
                .and_then(|percent| percent.parse().ok())
                .filter(|percent: &f64| *percent > 0.0 && *percent <= 1000.0)
                .ok_or_else(|| bad("PCT% is not a percentage above 0 and at most 1000"))?;
            Ok((channel.to_owned(), percent / 100.0))
        })
        .collect()
}

#[cfg(all(test, feature = "faults"))]
mod tests {
    use super::*;

    /// Seconds of `messages` rounds of `work` nanoseconds of busy work each, `slowdown` spun
    /// after each as a receiver would.
    fn timed(messages: u32, work: u64, slowdown: &mut Slowdown) -> f64 {
        let start = Instant::now();
        for _ in 0..messages {
            let until = Instant::now() + std::time::Duration::from_nanos(work);
            while Instant::now() < until {
                std::hint::spin_loop();
            }
            slowdown.spin();
        }
        start.elapsed().as_secs_f64()
    }

    #[test]
    fn the_slowdown_adds_the_share_asked_for_within_a_fifth_of_it() {
        // Interleaved repeats, the median of their ratios: the host's own noise moves both sides.
        let mut ratios: Vec<f64> = (0..7)
            .map(|_| {
                let plain = timed(20_000, 2_000, &mut Slowdown::default());
                let slowed = timed(20_000, 2_000, &mut Slowdown::by(0.15));
                slowed / plain
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        let added = ratios[3] - 1.0;
        assert!((0.12..=0.18).contains(&added), "asked 15%, added {:.1}%: {ratios:?}", added * 100.0);
    }

    #[test]
    fn a_percentage_is_read_and_anything_else_refused() {
        // SAFETY: tests of this module are the only readers of the variable in this process.
        unsafe { std::env::set_var(VARIABLE, "kanal:15%") };
        assert_eq!(requested(), Ok(vec![("kanal".to_owned(), 0.15)]));
        unsafe { std::env::set_var(VARIABLE, "kanal:15%,flume:5%") };
        assert_eq!(requested(), Ok(vec![("kanal".to_owned(), 0.15), ("flume".to_owned(), 0.05)]));
        for bad in ["kanal", "kanal:15", "kanal:0%", "kanal:fast%"] {
            unsafe { std::env::set_var(VARIABLE, bad) };
            assert!(requested().unwrap_err().contains("CHANNEL:PCT%"), "{bad}");
        }
        unsafe { std::env::remove_var(VARIABLE) };
    }
}
