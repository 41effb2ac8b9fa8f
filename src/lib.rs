//! channel-bench: async channel fan-in, measured under equal conditions with verified delivery.
//!
//! - [`channel`]: what is measured (one adapter per crate, and the table of them)
//! - [`scenario`]: how it is driven (cloned-send and merged-recv, generic over the adapter),
//!   with [`payload`] sizes, an optional [`sink`] and [`latency`] stamps
//! - [`allocs`]: the counting allocator behind `--count-allocs`
//! - [`measure`]: how it is timed
//! - [`verify`], [`stats`]: what it means
//! - [`report`]: who is told; [`sweep`] ties them together; [`cli`] validates the input
//! - [`compare`]: two CSVs, cell by cell
//! - [`summary`]: which channel to use, from one CSV

pub mod allocs;
pub mod channel;
pub mod cli;
pub mod compare;
#[cfg(feature = "faults")]
pub mod faults;
pub mod latency;
pub mod machine;
pub mod measure;
pub mod payload;
pub mod report;
pub mod scenario;
pub mod sink;
pub mod stats;
pub mod summary;
pub mod sweep;
pub mod verify;
