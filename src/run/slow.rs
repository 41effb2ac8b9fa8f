//! A known slowdown, for checking what a comparison can resolve (cargo feature `faults`):
//! `CHANNEL_BENCH_SLOW=CHANNEL:NS` makes the receiving task of channel CHANNEL spin on the
//! clock for NS nanoseconds on every message it takes, so that channel's ns/message rises by
//! about NS and no other channel's does. A normal build has the type and does nothing.

/// The environment variable that names the slowed channel and its nanoseconds per message.
pub const VARIABLE: &str = "CHANNEL_BENCH_SLOW";

/// The busy work a receiving task does per message: none, or (faults build) a spin.
#[derive(Debug, Clone, Copy, Default)]
pub struct Slowdown {
    /// How long each message spins.
    #[cfg(feature = "faults")]
    per_message: Option<std::time::Duration>,
}

impl Slowdown {
    /// The slowdown of the channel `name`: none unless [`VARIABLE`] names it (faults build).
    pub fn of(name: &str) -> Self {
        #[cfg(feature = "faults")]
        {
            let per_message = requested().ok().flatten().filter(|(channel, _)| channel == name).map(|(_, ns)| ns);
            Slowdown { per_message }
        }
        #[cfg(not(feature = "faults"))]
        {
            let _ = name;
            Slowdown {}
        }
    }

    /// Spins until the message's time has passed: measured on the clock, so the work per
    /// message does not depend on the CPU's speed.
    #[inline(always)]
    pub fn spin(&self) {
        #[cfg(feature = "faults")]
        if let Some(per_message) = self.per_message {
            let start = std::time::Instant::now();
            while start.elapsed() < per_message {
                std::hint::spin_loop();
            }
        }
    }
}

/// The channel and the time per message [`VARIABLE`] asks for: `None` when it is unset or empty,
/// `Err` (a line for the user) when it is not `CHANNEL:NS` with NS a positive whole number of
/// nanoseconds. Whether CHANNEL is one the sweep measures is the sweep's to check.
#[cfg(feature = "faults")]
pub fn requested() -> Result<Option<(String, std::time::Duration)>, String> {
    let value = std::env::var_os(VARIABLE).map(|value| value.to_string_lossy().into_owned()).unwrap_or_default();
    if value.is_empty() {
        return Ok(None);
    }
    let bad = |why: &str| format!("{VARIABLE}={value:?}: {why}; give CHANNEL:NS, such as kanal:200");
    let (channel, ns) = value.split_once(':').ok_or_else(|| bad("no colon"))?;
    let ns: u64 = ns.parse().ok().filter(|ns| *ns > 0).ok_or_else(|| bad("NS is not a positive whole number"))?;
    Ok(Some((channel.to_owned(), std::time::Duration::from_nanos(ns))))
}
