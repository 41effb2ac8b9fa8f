//! The binary: the built-in channels, run by [`channel_bench::app::main_with`], which parses
//! the command line, dispatches, and owns the one error path (exit 2 for usage, 1 for
//! everything else; a sweep stopped by a signal exits with 128 + its number).

use std::process::ExitCode;

/// Counts nothing until `--count-allocs` opens its window around a sample's clock;
/// until then each allocation costs one relaxed load more (docs/methodology.md, `--count-allocs`).
#[global_allocator]
static ALLOCATOR: channel_bench::run::allocs::CountingAllocator = channel_bench::run::allocs::CountingAllocator;

fn main() -> ExitCode {
    channel_bench::app::main_with(&[])
}
