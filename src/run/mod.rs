//! How one run is driven and timed: the [`workload`], the [`scenario`] written once over
//! [`crate::channel::Channel`], its [`payload`] sizes, [`latency`] stamps, [`sink`] and
//! [`allocs`] counts; [`measure`] times it and [`verify`] says whether it delivered.

pub mod allocs;
pub mod latency;
pub mod measure;
pub mod payload;
pub mod rounds;
pub mod scenario;
pub mod sink;
pub mod slow;
pub mod verify;
pub mod workload;
