//! channel-bench: async channel fan-in, measured under equal conditions with verified delivery.
//!
//! Layers, each importing only the ones below it:
//! - [`app`]: the commands (a sweep, `compare`, `summary`, `cells`, `report`), and
//!   [`app::main_with`], the whole binary, which the binary's `main` calls and a program of
//!   your own can call with channels of its own (`examples/custom_channel.rs`)
//! - `sweep`: runs a `plan`'s cells, hands every sample to `output`
//! - `output`: the console, the CSV writer, the summary's text, the HTML report, the machine
//!   description
//! - [`results`]: the results format (`results::schema`), its one reader, `compare`'s
//!   verdicts and `summary`'s rankings
//! - `plan`: the validated sweep, from the `cli`'s flags
//! - [`registry`]: the table of channels, each instantiated with the [`run`] scenario, and
//!   their crates' caveats
//! - [`run`]: one run's workload, scenario, clock, checks
//! - [`channel`]: the [`channel::Channel`] trait and one adapter per crate
//! - [`stats`], `error`, `paths`: pure statistics; the usage error; what is at a path and
//!   opening only regular files for writing
//!
//! The library's API is what a program of your own needs (docs/custom-channel.md):
//! [`app::main_with`], [`channel`] (the trait, the message, the errors), [`registry`] (the
//! table and [`registry::ChannelEntry::of`]) and [`run::allocs::CountingAllocator`]. [`results`],
//! [`stats`] and the rest of [`run`] are public for the integration tests, which check the
//! binary's output against them; everything else is the crate's own.

pub mod app;
pub mod channel;
mod cli;
mod error;
mod output;
mod paths;
mod plan;
pub mod registry;
pub mod results;
pub mod run;
pub mod stats;
mod sweep;
