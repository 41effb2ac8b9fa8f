//! The metric columns a sample records beside ns/message, indexed by one enum: each column's
//! name in the cells JSON and its value in a CSV row are one line of `TABLE`.

use std::ops::Index;

use serde::{Serialize, Serializer};

use super::schema::Record;

/// A metric an `ok` sample may record beside ns/message (`CellSamples::ok`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// CPU nanoseconds (user + system, all threads) per delivered message; none without `cpu_ns`.
    CpuNsPerMessage,
    /// Payload MB (10^6 bytes) per second of wall time.
    MbPerS,
    /// Median send→receive latency, nanoseconds; none without `--latency`.
    LatP50,
    /// 99th percentile latency, nanoseconds; none without `--latency`.
    LatP99,
    /// 99.9th percentile latency, nanoseconds; none without `--latency`.
    LatP999,
    /// Largest latency, nanoseconds; none without `--latency`.
    LatMax,
    /// Allocations inside the clock per message; none without `--count-allocs`.
    AllocsPerMessage,
    /// Bytes allocated inside the clock per message; none without `--count-allocs`.
    AllocBytesPerMessage,
}

/// How a column's value is read from a row; `None` where the row has none.
type Read = fn(&Record) -> Option<f64>;

/// Each column in [`Column`]'s order (its index): its name in the cells JSON and its value in a row.
const TABLE: [(Column, &str, Read); 8] = [
    // Per delivered message, as ns/message is under `--send try`.
    (Column::CpuNsPerMessage, "cpu_ns_per_message", |r| {
        let delivered = r.delivered.unwrap_or_else(|| r.messages.saturating_sub(r.dropped));
        r.cpu_ns.filter(|_| delivered > 0).map(|cpu_ns| cpu_ns as f64 / delivered as f64)
    }),
    (Column::MbPerS, "mb_per_s", |r| Some(r.mb_per_s)),
    (Column::LatP50, "lat_p50_ns", |r| r.lat_p50_ns.map(|ns| ns as f64)),
    (Column::LatP99, "lat_p99_ns", |r| r.lat_p99_ns.map(|ns| ns as f64)),
    (Column::LatP999, "lat_p999_ns", |r| r.lat_p999_ns.map(|ns| ns as f64)),
    (Column::LatMax, "lat_max_ns", |r| r.lat_max_ns.map(|ns| ns as f64)),
    (Column::AllocsPerMessage, "allocs_per_message", |r| r.allocs_per_message),
    (Column::AllocBytesPerMessage, "alloc_bytes_per_message", |r| r.alloc_bytes_per_message),
];

/// One `T` per [`Column`], indexed by it. With `Option` values it writes as the columns' JSON
/// names, each present column a key in [`Column`]'s order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns<T>(pub [T; TABLE.len()]);

impl Columns<Vec<f64>> {
    /// Adds `record`'s value of each column that it has one for.
    pub fn push_row(&mut self, record: &Record) {
        for (values, (_, _, of)) in self.0.iter_mut().zip(TABLE) {
            values.extend(of(record));
        }
    }
}

impl<T> Index<Column> for Columns<T> {
    type Output = T;
    fn index(&self, column: Column) -> &T {
        &self.0[column as usize]
    }
}

impl<T: Serialize> Serialize for Columns<Option<T>> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer
            .collect_map(TABLE.iter().zip(&self.0).filter_map(|((_, name, _), value)| Some((name, value.as_ref()?))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::IndexMut;

    impl<T> IndexMut<Column> for Columns<T> {
        fn index_mut(&mut self, column: Column) -> &mut T {
            &mut self.0[column as usize]
        }
    }

    #[test]
    fn the_table_lists_the_columns_in_their_order() {
        assert!(TABLE.iter().enumerate().all(|(at, (column, ..))| *column as usize == at));
    }

    #[test]
    fn present_columns_write_by_name_in_order() {
        let mut columns: Columns<Option<u32>> = Columns::default();
        (columns[Column::LatP99], columns[Column::CpuNsPerMessage]) = (Some(2), Some(1));
        let json = serde_json::to_string(&columns).unwrap();
        assert_eq!(json, r#"{"cpu_ns_per_message":1,"lat_p99_ns":2}"#);
    }
}
