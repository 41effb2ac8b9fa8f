//! A reading of the machine's speed, taken right before each sample and independent of the
//! channel measured: how long two threads take to hand a counter back and forth (a core-to-core
//! round trip, what a multi-thread channel pays for every wake-up it sends to another worker),
//! and how long one thread takes over a fixed loop (what a current-thread channel's every step
//! runs on). Silent: returns data, prints nothing.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Round trips in one timed burst of the handoff.
pub const ROUND_TRIPS: u32 = 400;
/// Timed bursts of each reading; the reading is their median, so a burst in which a thread was
/// preempted (one of them waiting a scheduler tick for its partner) does not move it.
pub const BURSTS: usize = 5;
/// Steps of the one-thread loop in one timed burst.
pub const LOOP_STEPS: u32 = 16_384;
/// Spins a waiting thread makes before it also yields its CPU: a partner that is not running
/// (the two threads on one CPU) is then waited for by the scheduler, not by a full time slice.
const SPINS_BEFORE_YIELD: u32 = 1 << 16;

/// The machine's speed just before one sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// Nanoseconds per round trip of a counter between two threads on two CPUs (the first two
    /// this process may run on, each thread pinned to one where the system allows it), the
    /// median of [`BURSTS`] bursts of [`ROUND_TRIPS`]; `None` on a machine with one CPU.
    pub handoff_ns: Option<f64>,
    /// Nanoseconds per step of a fixed loop on one thread (a dependent chain of integer
    /// operations), the median of [`BURSTS`] bursts of [`LOOP_STEPS`].
    pub loop_ns: f64,
}

/// Takes a reading: tens of microseconds to a millisecond on a 2-core VM. `slowed` (the faults
/// build's injected slow stretch, `super::slow::Stretch`; 0 otherwise) makes every burst take
/// that share longer, as it makes the sample.
pub fn take(slowed: f64) -> Reading {
    let loop_ns = crate::stats::median_of(&mut (0..BURSTS).map(|_| one_loop(slowed)).collect::<Vec<f64>>());
    Reading { handoff_ns: handoff(slowed), loop_ns }
}

/// One burst of the loop, nanoseconds per step.
fn one_loop(slowed: f64) -> f64 {
    let start = Instant::now();
    let mut state = black_box(0x9E37_79B9_7F4A_7C15u64);
    for _ in 0..LOOP_STEPS {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
    }
    black_box(state);
    super::slow::stretch(start, slowed);
    start.elapsed().as_nanos() as f64 / f64::from(LOOP_STEPS)
}

/// The handoff's median burst, nanoseconds per round trip; `None` when the process may run on
/// fewer than two CPUs or a thread cannot start.
fn handoff(slowed: f64) -> Option<f64> {
    let cpus = two_cpus()?;
    let counter = Arc::new(AtomicU32::new(0));
    let partner = {
        let counter = counter.clone();
        std::thread::Builder::new().name("channel-bench reading".to_owned()).spawn(move || {
            pin(cpus.1);
            for trip in 0..ROUND_TRIPS * BURSTS as u32 {
                if !wait_for(&counter, 2 * trip + 1) {
                    return;
                }
                counter.store(2 * trip + 2, Ordering::Release);
            }
        })
    }
    .ok()?;
    let timing = counter.clone();
    let timer = std::thread::Builder::new().name("channel-bench reading".to_owned()).spawn(move || {
        let counter = timing;
        pin(cpus.0);
        let mut bursts = Vec::with_capacity(BURSTS);
        for burst in 0..BURSTS as u32 {
            let start = Instant::now();
            for trip in burst * ROUND_TRIPS..(burst + 1) * ROUND_TRIPS {
                counter.store(2 * trip + 1, Ordering::Release);
                wait_for(&counter, 2 * trip + 2);
            }
            super::slow::stretch(start, slowed);
            bursts.push(start.elapsed().as_nanos() as f64 / f64::from(ROUND_TRIPS));
        }
        crate::stats::median_of(&mut bursts)
    });
    let Ok(timer) = timer else {
        // The partner waits for a first round trip that will never come.
        counter.store(ABANDONED, Ordering::Release);
        let _ = partner.join();
        return None;
    };
    let reading = timer.join().ok();
    let _ = partner.join();
    reading
}

/// What the counter is set to when the handoff is abandoned: the partner stops waiting.
const ABANDONED: u32 = u32::MAX;

/// Spins until `counter` reaches `value`, yielding now and then (`SPINS_BEFORE_YIELD`); false
/// when the handoff was abandoned instead.
fn wait_for(counter: &AtomicU32, value: u32) -> bool {
    let mut spins = 0u32;
    loop {
        match counter.load(Ordering::Acquire) {
            ABANDONED => return false,
            now if now >= value => return true,
            _ => {}
        }
        spins += 1;
        if spins.is_multiple_of(SPINS_BEFORE_YIELD) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// The first two CPUs this process may run on; `None` with fewer.
#[cfg(target_os = "linux")]
fn two_cpus() -> Option<(usize, usize)> {
    // SAFETY: cpu_set_t is a plain bit set, valid all-zero; sched_getaffinity writes into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return None;
    }
    // SAFETY: CPU_ISSET only reads the set, for CPUs below CPU_SETSIZE.
    let mut allowed = (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) });
    Some((allowed.next()?, allowed.next()?))
}

/// Elsewhere: two CPUs when the system has them, the threads left where the scheduler puts them.
#[cfg(not(target_os = "linux"))]
fn two_cpus() -> Option<(usize, usize)> {
    (std::thread::available_parallelism().ok()?.get() >= 2).then_some((0, 1))
}

/// Pins the calling thread to `cpu` where the system allows it; leaves it where it is otherwise.
#[cfg(target_os = "linux")]
fn pin(cpu: usize) {
    // SAFETY: as in `two_cpus`; sched_setaffinity(0, …) changes the calling thread only.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Elsewhere the thread stays where the scheduler puts it.
#[cfg(not(target_os = "linux"))]
fn pin(_cpu: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_is_positive_and_a_slowed_one_takes_its_share_longer() {
        let started = Instant::now();
        let reading = take(0.0);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        assert!(reading.loop_ns > 0.0 && reading.loop_ns.is_finite(), "{reading:?}");
        let two = std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() >= 2);
        assert_eq!(reading.handoff_ns.is_some(), two || cfg!(not(target_os = "linux")), "{reading:?}");
        assert!(reading.handoff_ns.is_none_or(|ns| ns > 0.0 && ns.is_finite()), "{reading:?}");
        // Slowed by 300%, a burst reads four times its own loop: the least of five slowed bursts
        // at least 3.5 times the least of five plain ones taken in turn with them, so that a
        // loaded host slows both kinds alike.
        let (mut plain, mut slowed) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..BURSTS {
            plain = plain.min(one_loop(0.0));
            slowed = slowed.min(one_loop(3.0));
        }
        assert!(slowed >= 3.5 * plain, "{slowed} against {plain}");
    }
}
