//! What a plan will cost before it runs: each cell's peak memory, checked against the memory
//! the machine (or its cgroup) has available, and a rough wall time for `--dry-run`.
//!
//! The memory of a cell is an upper estimate of what its run holds at once: every slot full,
//! each task's payload buffer (the messages in flight are slices of it), each task and channel,
//! the drawn sizes, the latency histogram and the sink's buffer. An allocation that fails all
//! the same aborts the process (Rust's allocation-error hook is not stable); docs/reference.md
//! says so.

use std::time::Duration;

use super::{Cell, Plan};
use crate::channel::Message;
use crate::error::usage;
use crate::run::workload::{Mode, WARMUP_MESSAGES};
use crate::run::{latency, sink};

/// Bytes per slot of a channel: the message, and as much again for the channel's own
/// bookkeeping of the slot (generous for every built-in channel).
const SLOT_BYTES: u128 = 2 * std::mem::size_of::<Message>() as u128;
/// What a sending task costs beyond its payload buffer: the task, its future and its sender.
const TASK_BYTES: u128 = 4096;
/// What a channel costs beyond its slots: one in cloned-send, one per task in merged-recv.
const CHANNEL_BYTES: u128 = 1024;
/// What a worker thread of the runtime costs: its run queue and the stack it touches.
const WORKER_BYTES: u128 = 256 * 1024;
/// The nanoseconds per message `--dry-run` assumes for its wall time, a sample's runtime start
/// and teardown included (docs/methodology.md).
pub const ASSUMED_NS_PER_MESSAGE: u64 = 140;

/// The share of a group's channels the later screening rounds keep (all but those clearly
/// behind, `sweep::choose::behind`), as `--dry-run` assumes it.
const ASSUMED_SCREENED_SHARE: f64 = 0.75;

/// The parts of `cell`'s peak memory, each named by the flag that sets it, largest first.
fn parts(cell: &Cell) -> Vec<(&'static str, u128)> {
    let workload = &cell.workload;
    let tasks = workload.tasks as u128;
    let channels = if workload.mode == Mode::MergedRecv { tasks } else { 1 };
    let slots = workload.capacity_per_channel() as u128 * channels * SLOT_BYTES + channels * CHANNEL_BYTES;
    let sizes = if workload.payload.varies() { u128::from(workload.messages) * 4 } else { 0 };
    let histogram = if workload.latency { latency::histogram_bytes() as u128 } else { 0 };
    let sink = if workload.sink.path().is_some() { sink::WRITE_BUFFER_BYTES as u128 } else { 0 };
    let mut parts = vec![
        ("--capacity", slots),
        ("--tasks", tasks * TASK_BYTES),
        ("--payload", tasks * workload.payload.max() as u128 + sizes),
        ("--workers", cell.workers as u128 * WORKER_BYTES),
        ("--latency", histogram),
        ("--sink", sink),
    ];
    parts.sort_by_key(|&(_, bytes)| std::cmp::Reverse(bytes));
    parts
}

/// The cell with the largest peak memory, and that peak.
pub fn largest_cell(plan: &Plan) -> Option<(Cell, u128)> {
    let peak = |cell: Cell| (parts(&cell).iter().map(|&(_, bytes)| bytes).sum::<u128>(), cell);
    plan.cells().into_iter().map(peak).max_by_key(|(bytes, _)| *bytes).map(|(bytes, cell)| (cell, bytes))
}

/// A usage error when the largest cell of `plan` needs more than `available` (bytes, and
/// where the figure comes from), naming the estimate and the flags that lower it most.
pub fn check_memory(plan: &Plan, available: Option<(u64, &'static str)>) -> anyhow::Result<()> {
    let (Some((available, source)), Some((cell, needed))) = (available, largest_cell(plan)) else { return Ok(()) };
    if needed <= u128::from(available) {
        return Ok(());
    }
    // The flags behind a tenth of the estimate or more, largest first: lowering the others would not help.
    let flags: Vec<&str> =
        parts(&cell).iter().filter(|&&(_, bytes)| bytes * 10 >= needed).take(2).map(|&(flag, _)| flag).collect();
    Err(usage(format!(
        "the cell {} needs about {} of memory ({}, --tasks {}, --payload {}), more than the {} available \
         ({source}): lower {}",
        cell.label(),
        bytes_text(needed),
        cell.workload.capacity_axis(),
        cell.workload.tasks,
        plan.payload,
        bytes_text(u128::from(available)),
        flags.join(" or ")
    )))
}

/// The memory a run may take, in bytes, and where that figure comes from: the least of
/// `MemAvailable` (/proc/meminfo), the room left under the cgroup's limit, and the process's own
/// limits on its address space and data (`RLIMIT_AS`, `RLIMIT_DATA`: `ulimit -v`, `ulimit -d`)
/// less what it already holds; `None` where none can be read.
pub fn available_memory() -> Option<(u64, &'static str)> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| mem_available(&text));
    let held = process_sizes();
    [
        (meminfo, "MemAvailable in /proc/meminfo"),
        (cgroup_room(), "the cgroup's memory limit"),
        (
            limit_room(libc::RLIMIT_AS, held.map(|(virtual_size, _)| virtual_size)),
            "the process's address-space limit (ulimit -v)",
        ),
        (limit_room(libc::RLIMIT_DATA, held.map(|(_, data)| data)), "the process's data limit (ulimit -d)"),
    ]
    .into_iter()
    .filter_map(|(room, source)| Some((room?, source)))
    .min_by_key(|(room, _)| *room)
}

/// The room left under the process's soft limit `resource` (getrlimit), given what it already
/// holds of it; `None` without a limit.
fn limit_room(resource: libc::__rlimit_resource_t, held: Option<u64>) -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and reads nothing else.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur.saturating_sub(held.unwrap_or(0)))
}

/// The process's virtual size and data size in bytes (/proc/self/statm: pages of the whole
/// mapping and of data + stack); `None` where it cannot be read.
fn process_sizes() -> Option<(u64, u64)> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let fields: Vec<u64> = statm.split_whitespace().filter_map(|field| field.parse().ok()).collect();
    // SAFETY: sysconf reads a constant of the system.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    Some((fields.first()? * page, fields.get(5)? * page))
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The cgroup's limit less what it uses, in bytes: cgroup v2 (`memory.max`, `memory.current`)
/// or v1 (`memory.limit_in_bytes`, `memory.usage_in_bytes`); `None` without a limit.
fn cgroup_room() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok()?.trim().parse::<u64>().ok();
    let (limit, used) = match read("/sys/fs/cgroup/memory.max") {
        Some(limit) => (limit, read("/sys/fs/cgroup/memory.current")?),
        None => {
            (read("/sys/fs/cgroup/memory/memory.limit_in_bytes")?, read("/sys/fs/cgroup/memory/memory.usage_in_bytes")?)
        }
    };
    // v1 writes "no limit" as a number near 2^63.
    (limit < 1 << 60).then(|| limit.saturating_sub(used))
}

/// What a paced sample takes beyond its schedule and last frame: its runtime's start and
/// teardown, the capacity probe and the unpaced warm-up.
const PACED_SAMPLE_OVERHEAD: Duration = Duration::from_millis(100);

/// The wall time line of `--dry-run` and `sfu`: [`wall_time`], said as a guess: the screening,
/// and what the duels may add when some band's answer stays open to the end of their budget.
pub fn wall_time_line(plan: &Plan) -> String {
    let shown = |time: Duration| humantime::format_duration(Duration::from_secs(time.as_secs().max(1))).to_string();
    let (screening, duels) = wall_time(plan);
    let range = if duels.is_zero() {
        shown(screening)
    } else {
        format!("{}, up to {} if the duels take all their time", shown(screening), shown(screening + duels))
    };
    format!("wall time: about {range} (a guess at {ASSUMED_NS_PER_MESSAGE} ns per message, or the --pace schedule)")
}

/// A rough wall time of the sweep: the screening (every build's screening rounds and warm-ups of
/// each cell at [`ASSUMED_NS_PER_MESSAGE`], or its paced schedule; the rounds after the first for
/// [`ASSUMED_SCREENED_SHARE`] of the cells not kept in a sweep of more than two channels), and the
/// duels' budget (`--max-time` × cells).
pub fn wall_time(plan: &Plan) -> (Duration, Duration) {
    let cells = plan.cells();
    let per_cell = |cell: &Cell| {
        let workload = &cell.workload;
        let warm = workload.messages.min(WARMUP_MESSAGES.max(workload.tasks as u64));
        let measured = Duration::from_nanos(workload.messages.saturating_mul(ASSUMED_NS_PER_MESSAGE));
        let sample = match workload.pace {
            // The schedule, its last frame, and the runtime's start and teardown around it.
            Some(_) => workload.paced_duration() + workload.pace_interval() + PACED_SAMPLE_OVERHEAD,
            None => measured,
        };
        // A kept channel, or one of a group of two, is rarely left out.
        let kept = plan.keep.contains(&cell.channel.name) || plan.channels.len() <= 2;
        let share = if kept { 1.0 } else { ASSUMED_SCREENED_SHARE };
        let rounds = 1.0 + plan.samples.saturating_sub(1) as f64 * share;
        let warm_ups = |first: bool| plan.isolation.warmups(first, plan.warmup) as f64;
        let warm_up = Duration::from_nanos(warm * ASSUMED_NS_PER_MESSAGE);
        sample.mul_f64(rounds) + warm_up.mul_f64(warm_ups(true) + warm_ups(false) * (rounds - 1.0))
    };
    (cells.iter().map(per_cell).sum::<Duration>() * plan.builds as u32, plan.max_time * cells.len() as u32)
}

/// Bytes as `1.5 GiB`, `12.0 MiB` or `512 KiB`.
pub fn bytes_text(bytes: u128) -> String {
    let bytes = bytes as f64;
    match [(3, "GiB"), (2, "MiB")].into_iter().find(|&(power, _)| bytes >= 1024f64.powi(power)) {
        Some((power, unit)) => format!("{:.1} {unit}", bytes / 1024f64.powi(power)),
        None => format!("{:.0} KiB", bytes / 1024.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        assert_eq!(mem_available("MemTotal: 8 kB\nMemAvailable:    2048 kB\n"), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 8 kB\n"), None);
    }

    #[test]
    fn bytes_read_in_the_largest_unit_that_fits() {
        assert_eq!(bytes_text(3 << 30), "3.0 GiB");
        assert_eq!(bytes_text(5 << 20), "5.0 MiB");
        assert_eq!(bytes_text(512 << 10), "512 KiB");
    }

    fn plan(args: &[&str]) -> Plan {
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from([&["channel-bench"][..], args].concat()).unwrap();
        // Validated without a memory limit, then checked against the one each test gives.
        let mut plan = Plan::with_extra(cli.sweep, &[]).unwrap_or_else(|error| panic!("{args:?}: {error}"));
        plan.out = None;
        plan
    }

    #[test]
    fn the_largest_cell_sets_the_peak_and_a_plan_past_the_memory_is_refused_naming_what_to_lower() {
        let small = plan(&["--tasks", "1,64", "--payload", "1200", "--channels", "kanal"]);
        let (cell, peak) = largest_cell(&small).unwrap();
        assert_eq!(cell.workload.tasks, 64, "more tasks, more buffers");
        assert!(peak >= 65536 * SLOT_BYTES + 64 * 1200, "{peak}");
        check_memory(&small, Some((u64::try_from(peak).unwrap(), "test"))).unwrap();
        let error = check_memory(&small, Some((u64::try_from(peak).unwrap() - 1, "test"))).unwrap_err().to_string();
        assert!(error.contains("tasks=64") && error.contains("lower --capacity"), "{error}");

        let payloads = plan(&["--tasks", "512", "--payload", "4000000", "--channels", "kanal", "--capacity", "1024"]);
        let error = check_memory(&payloads, Some((1 << 30, "test"))).unwrap_err().to_string();
        assert!(error.ends_with("lower --payload"), "{error}");
    }

    #[test]
    fn the_wall_time_grows_with_samples_and_messages() {
        let one = wall_time(&plan(&["--tasks", "1", "--channels", "kanal", "--samples", "1", "--max-time", "0"]));
        let five = wall_time(&plan(&["--tasks", "1", "--channels", "kanal", "--samples", "5", "--max-time", "0"]));
        assert!(five.0 > one.0 && one.0 > Duration::ZERO, "{one:?} {five:?}");
        assert_eq!((one.1, five.1), (Duration::ZERO, Duration::ZERO));
        let dueled =
            wall_time(&plan(&["--tasks", "1,2", "--channels", "kanal", "--samples", "1", "--max-time", "0.5"]));
        // Two modes × two runtimes × two task counts × the two default capacities, half a second each.
        assert_eq!(dueled.1, Duration::from_secs(8));
    }
}
