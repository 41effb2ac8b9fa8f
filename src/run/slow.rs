//! A known slowdown, for checking what a comparison can resolve (cargo feature `faults`):
//! `CHANNEL_BENCH_SLOW=CHANNEL:NS` makes the receiving task of channel CHANNEL do busy work
//! on every message it takes, NS nanoseconds' worth by a rate timed once per process, so that
//! channel's ns/message rises and no other channel's does. The rate is timed on a long loop, and
//! a few iterations per message run faster than that (on the reference VM NS=20 added about 3 ns
//! a message and NS=200 about 110): measure the slowdown an A/B actually applied from its A and
//! B runs, not from NS. A normal build has the type and does nothing.

/// The environment variable that names the slowed channel and its nanoseconds per message.
pub const VARIABLE: &str = "CHANNEL_BENCH_SLOW";

/// The busy work a receiving task does per message: none, or (faults build) a spin.
#[derive(Debug, Clone, Copy, Default)]
pub struct Slowdown {
    /// Iterations of the busy loop per message.
    #[cfg(feature = "faults")]
    iterations: u64,
}

impl Slowdown {
    /// The slowdown of the channel `name`: none unless [`VARIABLE`] names it (faults build).
    pub fn of(name: &str) -> Self {
        #[cfg(feature = "faults")]
        {
            let per_message = requested().ok().flatten().filter(|(channel, _)| channel == name).map(|(_, ns)| ns);
            let iterations = per_message.map_or(0, |ns| (ns.as_nanos() as f64 * iterations_per_ns()).round() as u64);
            Slowdown { iterations }
        }
        #[cfg(not(feature = "faults"))]
        {
            let _ = name;
            Slowdown {}
        }
    }

    /// The message's busy work: [`Slowdown::of`]'s iterations of an addition the compiler
    /// cannot see through.
    #[inline(always)]
    pub fn spin(&self) {
        #[cfg(feature = "faults")]
        busy(self.iterations);
    }
}

/// `iterations` additions, each through [`std::hint::black_box`] so none is folded away.
#[cfg(feature = "faults")]
#[inline(never)]
fn busy(iterations: u64) {
    let mut sum = 0u64;
    for i in 0..iterations {
        sum = std::hint::black_box(sum.wrapping_add(i));
    }
    std::hint::black_box(sum);
}

/// Iterations of [`busy`] per nanosecond on this machine: the best of a few timed rounds of
/// ten million, measured once per process.
#[cfg(feature = "faults")]
fn iterations_per_ns() -> f64 {
    static RATE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *RATE.get_or_init(|| {
        const ROUND: u64 = 10_000_000;
        (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                busy(ROUND);
                ROUND as f64 / start.elapsed().as_nanos().max(1) as f64
            })
            .fold(0.0, f64::max)
    })
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
