//! Who is told: the [`console`], the [`csv`] rows, the [`machine`] description, the
//! [`summary`]'s and [`compare`]'s text, the [`html`] report and its [`svg`] plots.
//! Formatting and writing only.

pub mod compare;
pub mod console;
pub mod csv;
pub mod html;
pub mod machine;
pub mod summary;
pub mod svg;
