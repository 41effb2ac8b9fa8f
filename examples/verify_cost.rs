//! What delivery verification costs per message: `Verifier::observe` on 2^24 arrivals,
//! senders interleaved round-robin (the verifier touches a different counter each time),
//! against a loop that only counts arrivals. Run: `cargo run --release --example verify_cost`.

use std::hint::black_box;
use std::time::Instant;

use channel_bench::run::verify::{Status, Verifier};

const MESSAGES: u32 = 1 << 24;

fn main() {
    println!("{:>6} {:>14} {:>14} {:>12}", "tasks", "verify ns/msg", "count ns/msg", "difference");
    for tasks in [1u32, 64, 512] {
        let per_task = MESSAGES / tasks;
        let arrivals = || (0..per_task).flat_map(move |seq| (0..tasks).map(move |sender| (sender, seq)));
        let best_of = |run: &dyn Fn()| {
            (0..5)
                .map(|_| {
                    let start = Instant::now();
                    run();
                    start.elapsed().as_nanos() as f64 / f64::from(per_task * tasks)
                })
                .fold(f64::INFINITY, f64::min)
        };
        let verify = best_of(&|| {
            let mut verifier = Verifier::new(vec![per_task; tasks as usize], false);
            for (sender, seq) in arrivals() {
                verifier.observe(black_box(sender), black_box(seq));
            }
            assert_eq!(verifier.finish(0), Status::Ok);
        });
        let count = best_of(&|| {
            let mut received = 0u64;
            for (sender, seq) in arrivals() {
                black_box((sender, seq));
                received += 1;
            }
            assert_eq!(black_box(received), u64::from(per_task * tasks));
        });
        println!("{tasks:>6} {verify:>14.2} {count:>14.2} {:>12.2}", verify - count);
    }
}
