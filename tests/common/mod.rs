//! Hand-made channel-bench CSVs for the tests of `compare` and `summary`.

use std::path::{Path, PathBuf};

/// The 14 columns every channel-bench CSV has had; newer columns are optional to readers.
pub const HEADER: &str = "channel,mode,runtime,workers,tasks,messages,capacity,capacity_per_channel,payload_bytes,sample,elapsed_ns,ns_per_message,cpu_ns,status";

/// CSV rows for one cloned-send cell: one per value, `ok` unless the value is negative (then
/// a failed sample); CPU time is twice the wall time.
pub fn cell(channel: &str, runtime: &str, tasks: u32, values: &[f64]) -> String {
    values
        .iter()
        .enumerate()
        .map(|(index, &value)| {
            let status = if value < 0.0 { "lost: 1 of 1000 messages missing" } else { "ok" };
            let ns = value.abs();
            format!(
                "{channel},cloned-send,{runtime},2,{tasks},1000,64,64,1200,{},{},{ns},{},{status}\n",
                index + 1,
                (ns * 1000.0) as u64,
                (ns * 2000.0) as u64
            )
        })
        .collect()
}

/// Writes `body` to `dir/name`.
pub fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}
