//! What reading a clock costs on this machine: `std::time::Instant::now()` against
//! `quanta::Clock::raw()` (the time-stamp counter where it is reliable), the clock
//! `--latency` stamps every message with. Run with `cargo run --release --example clock_cost`.

use std::hint::black_box;
use std::time::Instant;

const READS: u32 = 10_000_000;

fn per_read(read: impl Fn() -> u64) -> f64 {
    let start = Instant::now();
    let mut sum = 0u64;
    for _ in 0..READS {
        sum = sum.wrapping_add(black_box(read()));
    }
    black_box(sum);
    start.elapsed().as_nanos() as f64 / f64::from(READS)
}

fn main() {
    let origin = Instant::now();
    let clock = quanta::Clock::new();
    for round in 1..=3 {
        let std_ns = per_read(|| origin.elapsed().as_nanos() as u64);
        let quanta_ns = per_read(|| clock.raw());
        println!("round {round}: Instant::now {std_ns:.1} ns/read, quanta raw {quanta_ns:.1} ns/read");
    }
}
