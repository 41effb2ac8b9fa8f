//! What machine and build a run happened on, for the JSON beside the CSV, and how fast two runs'
//! machines ran.

use std::collections::BTreeMap;

use crate::registry::{self, ChannelEntry, RUNTIME_CRATE};
use crate::results::load::{MachineSpeed, Waited};
use crate::results::metadata::Metadata;
use crate::run::measure::RuntimeKind;

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

/// Two runs' readings of their machines (`results::load::MachineSpeed`), named by `names`
/// (`old` and `new`; `baseline` and `candidate`), each of the second as a multiple of the
/// first's, so that a reader sees how far apart the machines ran before reading ns/message;
/// `None` unless both runs read one.
pub fn speeds(names: [&str; 2], old: Option<&MachineSpeed>, new: Option<&MachineSpeed>) -> Option<String> {
    let (old, new) = (old?, new?);
    let [first, second] = names;
    let reading = |what: &str, old: Option<f64>, new: Option<f64>| {
        let (old, new) = (old?, new?);
        Some(format!("{what} {old:.0} ns ({first}), {new:.0} ns ({second}, {:.2}×)", new / old))
    };
    let round_trip = reading("a round trip between cores", old.handoff_ns, new.handoff_ns);
    let step = |value: Option<f64>| value.map(|v| v * 100.0);
    let loop_step = reading("100 loop steps", step(old.loop_ns), step(new.loop_ns));
    let parts = [round_trip, loop_step].into_iter().flatten().collect::<Vec<_>>().join("; ");
    (!parts.is_empty()).then(|| {
        format!("machine speed: {parts}; a machine slower by a ratio moves every figure of its runtime by about it")
    })
}

/// `the new run's host was busy: its threads waited for a core on multi-thread 49.3% of the
/// time they were ready, …`: a run `name`d so whose runtimes ran on a busy host
/// (`load::Waited::busy`), whose figures are of a busy host; `None` when none did.
pub fn busy(name: &str, waited: &Waited) -> Option<String> {
    let busy: Vec<String> = (RuntimeKind::ALL.into_iter())
        .filter_map(|runtime| match waited.busy(runtime)? {
            (share, true) => Some(format!("on {runtime} {}", super::format::percent(share))),
            _ => None,
        })
        .collect();
    (!busy.is_empty()).then(|| {
        format!(
            "the {name} run's host was busy: its threads waited for a core {} of the time they were ready; its \
             figures are of a busy host",
            busy.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD_NEW: [&str; 2] = ["old", "new"];

    #[test]
    fn the_machine_speeds_say_how_far_apart_the_runs_ran() {
        let speed = |handoff, step| MachineSpeed { handoff_ns: handoff, loop_ns: step, ..MachineSpeed::default() };
        let (old, new) = (speed(Some(130.0), Some(2.0)), speed(Some(260.0), Some(2.5)));
        assert_eq!(
            speeds(OLD_NEW, Some(&old), Some(&new)).unwrap(),
            "machine speed: a round trip between cores 130 ns (old), 260 ns (new, 2.00×); 100 loop steps 200 ns \
             (old), 250 ns (new, 1.25×); a machine slower by a ratio moves every figure of its runtime by about it"
        );
        let no_handoff = speed(None, Some(2.0));
        assert!(speeds(OLD_NEW, Some(&no_handoff), Some(&new)).unwrap().starts_with("machine speed: 100 loop steps"));
        assert_eq!(speeds(OLD_NEW, None, Some(&new)), None);
        assert_eq!(speeds(OLD_NEW, Some(&speed(None, None)), Some(&new)), None);
    }

    #[test]
    fn a_run_on_a_busy_host_is_named_with_how_long_its_threads_waited() {
        use crate::results::load::of_rows;
        use crate::results::schema::Record;
        let row = |runtime, delay: u64| Record {
            runtime,
            run_delay_ns: Some(delay),
            cpu_ns: Some(1_000),
            ..Record::default()
        };
        let busy = of_rows(&[row(RuntimeKind::MultiThread, 1_000), row(RuntimeKind::CurrentThread, 10)]).waited;
        assert_eq!(
            super::busy("new", &busy).unwrap(),
            "the new run's host was busy: its threads waited for a core on multi-thread 50.0% of the time they \
             were ready; its figures are of a busy host"
        );
        assert_eq!(super::busy("old", &of_rows(&[row(RuntimeKind::MultiThread, 10)]).waited), None);
    }
}
