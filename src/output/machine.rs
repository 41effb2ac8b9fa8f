//! What machine and build a run happened on, for the JSON beside the CSV.

use std::collections::BTreeMap;

use crate::registry::{self, ChannelEntry, RUNTIME_CRATE};
use crate::results::metadata::Metadata;

/// Describes this machine and build for a sweep over `channels`.
pub fn describe(channels: &[&ChannelEntry], command_line: Vec<String>, started_utc: String) -> Metadata {
    Metadata {
        cpu_model: cpu_model(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: operating_system(),
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        rustc: env!("CHANNEL_BENCH_RUSTC").to_owned(),
        crates: crates(channels.iter().copied()),
        git_commit: git_commit(),
        command_line,
        started_utc,
        setup: registry::setups(channels.iter().copied()),
        keep: Vec::new(),
        weigh: None,
        builds: Vec::new(),
    }
}

/// The version of each of `channels`' crates and of the runtime's (every channel's figures
/// move with it), from this build's Cargo.lock.
pub fn crates<'a>(channels: impl IntoIterator<Item = &'a ChannelEntry>) -> BTreeMap<String, String> {
    channels
        .into_iter()
        .map(|channel| (channel.crate_name.to_owned(), channel.version()))
        .chain([(RUNTIME_CRATE.to_owned(), registry::locked_version(RUNTIME_CRATE))])
        .collect()
}

/// The git commit this binary was built from, when known.
pub fn git_commit() -> Option<String> {
    Some(env!("CHANNEL_BENCH_GIT").to_owned()).filter(|commit| !commit.is_empty())
}

fn cpu_model() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name")?.split_once(':').map(|(_, model)| model.trim().to_owned()))
}

fn operating_system() -> String {
    let pretty_name = std::fs::read_to_string("/etc/os-release").ok().and_then(|release| {
        release.lines().find_map(|line| line.strip_prefix("PRETTY_NAME=").map(|name| name.trim_matches('"').to_owned()))
    });
    let kernel = read_trimmed("/proc/sys/kernel/osrelease").map(|kernel| format!("{} {kernel}", std::env::consts::OS));
    match (pretty_name, kernel) {
        (Some(name), Some(kernel)) => format!("{name}, {kernel}"),
        (name, kernel) => name.or(kernel).unwrap_or_else(|| std::env::consts::OS.to_owned()),
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    Some(std::fs::read_to_string(path).ok()?.trim().to_owned())
}
