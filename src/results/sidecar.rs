//! The latency sidecar `X.latency.csv` beside a run's CSV `X.csv`: one line per sample measured
//! with `--latency`, its row number in `X.csv` (1 for the first row under the header) and its
//! histogram as `crate::run::latency::encode` writes it. The CSV itself keeps the percentiles.
//! Files written before the sidecar carry the histogram in the CSV's own `lat_histogram` column.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::results::schema::Record;

/// The sidecar's extension, replacing the CSV's `.csv`.
pub const EXTENSION: &str = "latency.csv";

/// The sidecar's header: the fields of [`Line`].
pub const HEADER: [&str; 2] = ["row", "lat_histogram"];

/// One line of the sidecar.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// The sample's row in the CSV, counted from 1 below the header.
    pub row: usize,
    /// The sample's send→receive latency histogram, nanoseconds, `VALUE:COUNT` pairs in
    /// hexadecimal joined by `;` (`crate::run::latency::encode`).
    pub lat_histogram: String,
}

/// The sidecar of the CSV at `csv`.
pub fn path(csv: &Path) -> PathBuf {
    csv.with_extension(EXTENSION)
}

/// Fills each row's `lat_histogram`, decoded, from the sidecar beside `csv`, when there is one.
/// A last line without its newline (a run stopped mid-write) is skipped; a row number past the
/// CSV's rows, a malformed line or histogram is an error naming the sidecar and line.
pub fn attach(csv: &Path, rows: &mut [Record]) -> anyhow::Result<()> {
    let path = path(csv);
    let name = path.display();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {name}")),
    };
    let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    let mut reader = csv::Reader::from_reader(complete.as_bytes());
    if reader.headers().map_err(|error| anyhow::anyhow!("{name}: {error}"))? != HEADER.as_slice() {
        bail!("{name} is not a latency sidecar: its header is not {}", HEADER.join(","));
    }
    for line in reader.deserialize::<Line>() {
        let line = line.map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
        let Some(record) = line.row.checked_sub(1).and_then(|index| rows.get_mut(index)) else {
            bail!("{name}: row {} is not a row of {}", line.row, csv.display());
        };
        record.lat_histogram = crate::run::latency::decode(&line.lat_histogram)
            .map_err(|error| anyhow::anyhow!("{name} row {}: {error}", line.row))?;
    }
    Ok(())
}
