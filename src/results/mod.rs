//! The results format and what reads it: [`schema`] (the CSV row), [`sidecar`] (the latency
//! histograms beside it) and [`metadata`] (the JSON beside it) are its one owner; [`load`] is the one reader; [`cells`], [`compare`] and
//! [`recommend`] turn loaded files (several runs pooled by [`pool`]) into per-cell figures,
//! verdicts and picks ([`careful`]: the fastest with no known problem); [`versions`]: the crate
//! versions beside an answer; [`colour`] gives each channel its colour; [`memory`]: what
//! `channel-bench memory` writes and answers.

pub mod ab;
pub mod across;
pub mod analysis;
pub mod band;
pub mod careful;
pub mod cells;
pub mod channel;
pub mod colour;
pub mod column;
pub mod compare;
pub mod coord;
pub mod decide;
pub mod decision;
pub mod designs;
pub mod figures;
pub mod host;
pub mod load;
pub mod memory;
pub mod metadata;
pub mod noise;
pub mod order;
pub mod paced;
pub mod pool;
pub mod ranking;
pub mod recommend;
pub mod repeat;
pub mod schema;
pub mod setting;
pub mod sidecar;
pub mod unkept;
pub mod versions;
pub mod weigh;
