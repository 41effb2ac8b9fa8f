//! Who is told: the [`answer`] as JSON, the [`console`], the [`csv`] rows, the [`machine`] description, the
//! [`summary`]'s and [`compare`]'s text, the per-cell [`export`]s, the [`html`] report and its
//! [`svg`] plots, the [`files`] a sweep writes, the [`pool`]ed runs' noise margins, the [`paced`] answer (latency under load), `memory`'s files and text ([`memory`]); [`format`] says how
//! every number and label reads.
//! Formatting and writing only.

pub mod ab;
pub mod across;
pub mod answer;
pub mod compare;
pub mod console;
pub mod csv;
pub mod decision;
pub mod doc;
pub mod document;
pub mod export;
pub mod files;
pub mod format;
pub mod html;
pub mod machine;
pub mod matrix;
pub mod memory;
pub mod open;
pub mod paced;
pub mod pool;
pub mod summary;
pub mod svg;

#[cfg(test)]
#[path = "tests/agree.rs"]
mod agree;
