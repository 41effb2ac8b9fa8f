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
use crate::error::usage;
use crate::run::measure::{RuntimeKind, statm};
use crate::run::workload::{Mode, RecordBytes, WARMUP_MESSAGES};
use crate::run::{latency, sink};

/// Bytes per slot of a channel, as a multiple of the message's: the message, and as much again
/// for the channel's own bookkeeping of the slot (generous for every built-in channel).
const SLOT_FACTOR: u128 = 2;
/// What a sending task costs beyond its payload buffer: the task, its future and its sender.
const TASK_BYTES: u128 = 4096;
/// What a channel costs beyond its slots: one in cloned-send, one per task in merged-recv.
const CHANNEL_BYTES: u128 = 1024;
/// What a worker thread of the runtime costs: its run queue and the stack it touches.
const WORKER_BYTES: u128 = 256 * 1024;
/// The nanoseconds per message the wall time assumes on the current-thread runtime, flat out;
/// on the multi-thread runtime, this times 1 + √(workers ÷ 2) ([`ns_per_message`]). Fitted with
/// [`ROUND_COST`] and [`RUN_COST`] on the committed reference runs whose wall times are known
/// (docs/methodology.md, "How long a sweep takes").
pub const ASSUMED_NS_PER_MESSAGE: u64 = 90;

/// The nanoseconds each byte of a record moved by value adds to a message beyond a 48-byte one
/// (`--record-bytes`): a record is copied into the channel's slot and out, and a large one
/// misses the caches. Fitted on the 2-core reference VM's run of `--record-bytes 48,1200`
/// (docs/results/2core-epyc-vm-2026-11-28.md, "Records by value").
pub const ASSUMED_NS_PER_RECORD_BYTE: f64 = 0.3;

/// What a round costs beyond its runs: the fresh process of this binary that measures it
/// (`run::rounds`) started and ended, and the parent's work between two rounds.
pub const ROUND_COST: Duration = Duration::from_millis(50);

/// What a run (a sample or a warm-up) costs beyond its messages: its runtime started and shut
/// down, its tasks and channels made and dropped.
pub const RUN_COST: Duration = Duration::from_millis(3);

/// How far the wall time may be from the estimate, either way, before the run's end says so.
pub const ESTIMATE_OFF_BY: f64 = 1.5;

/// The share of a group's channels the later screening rounds keep (all but those clearly
/// behind, `sweep::choose::behind`), as `--dry-run` assumes it.
const ASSUMED_SCREENED_SHARE: f64 = 0.75;

/// The parts of `cell`'s peak memory, each named by the flag that sets it, largest first.
fn parts(cell: &Cell) -> Vec<(&'static str, u128)> {
    let workload = &cell.workload;
    let tasks = workload.tasks as u128;
    let channels = if workload.mode == Mode::MergedRecv { tasks } else { 1 };
    let slot_bytes = SLOT_FACTOR * workload.record.slot_bytes() as u128;
    let slots = workload.capacity_per_channel() as u128 * channels * slot_bytes + channels * CHANNEL_BYTES;
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

/// The process's virtual size and data size in bytes (the whole mapping and data + stack of
/// [`statm`]); `None` where it cannot be read.
fn process_sizes() -> Option<(u64, u64)> {
    let sizes = statm()?;
    Some((*sizes.first()?, *sizes.get(5)?))
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

/// What a paced sample takes beyond its schedule and last frame: the capacity probe and the
/// unpaced warm-up's start.
const PACED_SAMPLE_OVERHEAD: Duration = Duration::from_millis(100);

/// A sweep's wall time, as [`wall_time`] estimates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallTime {
    /// The screening rounds: every sample and warm-up, and each round's process.
    pub screening: Duration,
    /// The duels' budget (`--max-time` × cells), and the longest round past it (the duels check
    /// their time before each round): the wall time they may take, which they take whole while
    /// some band's answer stays open.
    pub duels: Duration,
}

impl WallTime {
    /// The whole sweep: the screening and the duels' whole budget.
    pub fn total(self) -> Duration {
        self.screening + self.duels
    }

    /// The longest the sweep may take: the duels going on past their budget while bands stay
    /// open ([`duels_bound`]).
    pub fn longest(self) -> Duration {
        self.screening + duels_bound(self.duels, self.screening)
    }
}

/// How much of the sweep's nominal time ([`duels_bound`]) the duels may take again past their
/// budget, over the bands still open that rounds can decide.
pub const DUELS_EXTENSION: f64 = 0.5;

/// The longest the duels may take on a noisy host (`results::host::NOISY_SHARE`; the sweep
/// judges that when their `budget`, `--max-time` × cells, is spent), `screening` having taken
/// its time: the budget, then, while a band stays open that rounds can decide, at most
/// [`DUELS_EXTENSION`] of the nominal time (screening and budget) again. A calm host stops at
/// the budget, a run whose every band decides before it; `--max-time 0` has no duels.
pub fn duels_bound(budget: Duration, screening: Duration) -> Duration {
    if budget.is_zero() { budget } else { budget + (screening + budget).mul_f64(DUELS_EXTENSION) }
}

/// `1m 30s`: a duration to the second, at least one.
pub fn seconds_text(time: Duration) -> String {
    humantime::format_duration(Duration::from_secs(time.as_secs().max(1))).to_string()
}

/// The wall time line of `--dry-run` and `sfu`: [`wall_time`], its screening and duels apart.
pub fn wall_time_line(plan: &Plan) -> String {
    let time = wall_time(plan);
    let (duels, longest) = if time.duels.is_zero() {
        (String::new(), String::new())
    } else {
        let longest = format!(" (up to {} on a noisy host)", seconds_text(time.longest()));
        (format!(", then duels while an answer stays open, {}", seconds_text(time.duels)), longest)
    };
    let records = plan.records.iter().any(|record| record.by_value().is_some());
    let records =
        if records { format!(", {ASSUMED_NS_PER_RECORD_BYTE} ns more a byte of a record") } else { String::new() };
    let records = match plan.work_per_batch {
        Some(_) => format!("{records}, the receiver's work per batch"),
        None => records,
    };
    format!(
        "wall time: about {}{longest}: screening {}{duels} (a guess: {ASSUMED_NS_PER_MESSAGE} ns per message on \
         current-thread, more on multi-thread{records}, or the --pace schedule; {} ms per round)",
        seconds_text(time.total()),
        seconds_text(time.screening),
        ROUND_COST.as_millis()
    )
}

/// The line the run's end prints when its wall time `took` was more than [`ESTIMATE_OFF_BY`]
/// times off the estimate `expected`, either way; `None` within it. A run longer than its
/// estimate blames the host only when the host was measured `noisy` (`results::host::NOISY_SHARE`
/// of the run's samples left out as disturbed, `left_out` being their share); else the estimate.
pub fn off_line(expected: Duration, took: Duration, (left_out, noisy): (f64, bool)) -> Option<String> {
    let ratio = took.as_secs_f64() / expected.as_secs_f64().max(1e-3);
    let why = if ratio < 1.0 {
        "this machine was faster than the estimate assumes".to_owned()
    } else if noisy {
        format!("the host was noisy: {:.0}% of the samples were left out as disturbed", left_out * 100.0)
    } else {
        format!(
            "the estimate fell short for this run ({:.0}% of the samples left out as disturbed: the host was not \
             measured noisy)",
            left_out * 100.0
        )
    };
    (!(1.0 / ESTIMATE_OFF_BY..=ESTIMATE_OFF_BY).contains(&ratio)).then(|| {
        format!(
            "note: the rounds took {}, {ratio:.1}× the estimate of about {}: {why} (plan::estimate)",
            seconds_text(took),
            seconds_text(expected),
        )
    })
}

/// The nanoseconds per message the wall time assumes for `cell` flat out: [`ASSUMED_NS_PER_MESSAGE`]
/// on current-thread; on multi-thread, that times 1 + √(workers ÷ 2), as the worker threads
/// handing messages to each other cost more per message the more there are; plus a record's
/// bytes moved by value, and the receiver's `--work-per-batch` over the most messages a batch
/// takes (a batch takes fewer when fewer wait: the least the work adds).
fn ns_per_message(cell: &Cell) -> f64 {
    let base = ASSUMED_NS_PER_MESSAGE as f64;
    let runtime = match cell.runtime {
        RuntimeKind::CurrentThread => base,
        RuntimeKind::MultiThread => base * (1.0 + (cell.workers as f64 / 2.0).sqrt()),
    };
    let record = cell.workload.record;
    let copied = record.by_value().map_or(0.0, |bytes| f64::from(bytes) - RecordBytes::B48.slot_bytes() as f64);
    let workload = &cell.workload;
    let work = workload.work_per_batch.map_or(0.0, |work| work.as_nanos() as f64 / workload.batch.max(1) as f64);
    runtime + ASSUMED_NS_PER_RECORD_BYTE * copied.max(0.0) + work
}

/// The wall time of `plan`: the screening (every build's screening rounds, each a process
/// ([`ROUND_COST`]) of one group's samples and warm-ups, each a run ([`RUN_COST`]) at
/// [`ns_per_message`] or its paced schedule; the rounds after the first for
/// [`ASSUMED_SCREENED_SHARE`] of the cells not kept in a sweep of more than two channels), and the
/// duels' budget (`--max-time` × cells) with the longest round past it.
pub fn wall_time(plan: &Plan) -> WallTime {
    let cells = plan.cells();
    let per_cell = |cell: &Cell| {
        let workload = &cell.workload;
        let warm_up = messages(cell, workload.messages.min(WARMUP_MESSAGES.max(workload.tasks as u64)));
        let sample = sample(cell);
        // A kept channel, or one of a group of two, is rarely left out.
        let kept = plan.keep.contains(&cell.channel.name) || plan.channels.len() <= 2;
        let share = if kept { 1.0 } else { ASSUMED_SCREENED_SHARE };
        let rounds = 1.0 + plan.samples.saturating_sub(1) as f64 * share;
        let warm_ups = |first: bool| plan.isolation.warmups(first, plan.warmup) as f64;
        sample.mul_f64(rounds) + warm_up.mul_f64(warm_ups(true) + warm_ups(false) * (rounds - 1.0))
    };
    // Every group holds each channel once: a screening round per group and pass, per build.
    let rounds = (cells.len() / plan.channels.len().max(1) * plan.samples * plan.builds) as u32;
    let runs = cells.iter().map(per_cell).sum::<Duration>() * plan.builds as u32;
    let budget = plan.max_time.mul_f64(plan.duel_cells());
    // The duels check their time before each round: the round begun last runs to its end.
    let longest_round = cells.iter().map(sample).max().unwrap_or_default() * (plan.channels.len() * plan.builds) as u32;
    let duels = if budget.is_zero() { budget } else { budget + longest_round };
    WallTime { screening: runs + ROUND_COST * rounds, duels }
}

/// One flat-out run of `count` of `cell`'s messages at [`ns_per_message`], with [`RUN_COST`].
fn messages(cell: &Cell, count: u64) -> Duration {
    Duration::from_secs_f64(count as f64 * ns_per_message(cell) / 1e9) + RUN_COST
}

/// One sample of `cell`: its messages flat out, or a paced sample's schedule, its last frame and
/// what it does around them ([`PACED_SAMPLE_OVERHEAD`]).
fn sample(cell: &Cell) -> Duration {
    let workload = &cell.workload;
    match workload.pace {
        Some(_) => workload.paced_duration() + workload.pace_interval() + PACED_SAMPLE_OVERHEAD,
        None => messages(cell, workload.messages),
    }
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
    fn a_paced_sweeps_duels_take_their_budget_and_a_round_of_its_group_past_it() {
        let flags = ["--channels", "kanal,flume", "--tasks", "8", "--pace", "1ms", "--duration", "1s"];
        let paced = plan(&[&flags[..], &["--modes", "cloned-send", "--runtimes", "multi-thread"]].concat());
        let cell = &paced.cells()[0];
        let sample = cell.workload.paced_duration() + cell.workload.pace_interval() + PACED_SAMPLE_OVERHEAD;
        let budget = paced.max_time.mul_f64(paced.duel_cells());
        assert_eq!(wall_time(&paced).duels, budget + sample * 2, "two channels a round");
    }

    #[test]
    fn the_receivers_work_per_batch_adds_its_share_of_each_message() {
        let (plain, worked) = (plan(&["--batch", "1,256"]), plan(&["--batch", "1,256", "--work-per-batch", "2us"]));
        for (plain, worked) in plain.cells().iter().zip(worked.cells()) {
            let added = ns_per_message(&worked) - ns_per_message(plain);
            assert_eq!(added, 2000.0 / worked.workload.batch as f64, "{}", worked.label());
        }
        assert!(wall_time(&worked).screening > wall_time(&plain).screening);
    }

    #[test]
    fn the_duels_count_a_band_of_fewer_task_counts_than_the_default_as_the_default() {
        let default = plan(&[]);
        assert_eq!(default.duel_cells(), default.cells().len() as f64, "the default sweep counts each cell once");
        // One task count of each band stands for the default's 4, 3 and 3.
        assert_eq!(plan(&["--tasks", "1,64,512"]).duel_cells(), default.cells().len() as f64);
        let two_small = plan(&["--tasks", "1,8,16,32,64,128", "--channels", "kanal"]);
        let cells_per_tasks = two_small.cells().len() as f64 / 6.0;
        assert_eq!(two_small.duel_cells(), cells_per_tasks * (2.0 * 2.0 + 3.0 + 1.0 * 3.0));
        // More task counts in a band than the default's: once each. A band the default has none
        // of: as its large band.
        let more = plan(&["--tasks", "1,2,3,4,5,6,7,8,1024", "--channels", "kanal"]);
        assert_eq!(more.duel_cells(), more.cells().len() as f64 / 9.0 * (8.0 + 3.0));
    }

    #[test]
    fn the_largest_cell_sets_the_peak_and_a_plan_past_the_memory_is_refused_naming_what_to_lower() {
        let small = plan(&["--tasks", "1,64", "--payload", "1200", "--channels", "kanal"]);
        let (cell, peak) = largest_cell(&small).unwrap();
        assert_eq!(cell.workload.tasks, 64, "more tasks, more buffers");
        assert!(peak >= 65536 * SLOT_FACTOR * 48 + 64 * 1200, "{peak}");
        check_memory(&small, Some((u64::try_from(peak).unwrap(), "test"))).unwrap();
        let error = check_memory(&small, Some((u64::try_from(peak).unwrap() - 1, "test"))).unwrap_err().to_string();
        assert!(error.contains("tasks=64") && error.contains("lower --capacity"), "{error}");

        let payloads = plan(&["--tasks", "512", "--payload", "4000000", "--channels", "kanal", "--capacity", "1024"]);
        let error = check_memory(&payloads, Some((1 << 30, "test"))).unwrap_err().to_string();
        assert!(error.ends_with("lower --payload"), "{error}");
    }

    #[test]
    fn the_wall_time_counts_every_run_round_and_the_duels_budget() {
        // One current-thread cell of 1,000,000 messages, two screening rounds, each a process
        // with one warm-up of WARMUP_MESSAGES before the sample, then 0.5 s of duels for each of
        // the four task counts the default sweep gives the band of one task (`Plan::duel_cells`).
        let flags = ["--tasks", "1", "--channels", "kanal", "--runtimes", "current-thread", "--modes", "cloned-send"];
        let more = ["--capacity", "1024", "--messages", "1000000", "--samples", "2", "--max-time", "0.5"];
        let one = wall_time(&plan(&[&flags[..], &more].concat()));
        let ns = |messages: u64| Duration::from_nanos(messages * ASSUMED_NS_PER_MESSAGE);
        let run = ns(1_000_000) + RUN_COST + ns(WARMUP_MESSAGES) + RUN_COST;
        assert_eq!(one.screening, run * 2 + ROUND_COST * 2);
        // The duels' budget, and the round begun last, one sample of the group's one channel.
        assert_eq!(one.duels, Duration::from_millis(2000) + ns(1_000_000) + RUN_COST);
        assert_eq!(one.total(), one.screening + one.duels);
        // On 8 worker threads a message costs 1 + √4 = 3 times as much.
        let multi = ["--runtimes", "multi-thread", "--workers", "8", "--max-time", "0"];
        let eight = wall_time(&plan(&[&flags[..4], &flags[6..], &more[..6], &multi].concat()));
        let run = (ns(1_000_000) + ns(WARMUP_MESSAGES)) * 3 + RUN_COST * 2;
        assert_eq!(eight, WallTime { screening: run * 2 + ROUND_COST * 2, duels: Duration::ZERO });
        // Three channels: one round per pass still, the second pass for three quarters of them.
        let three = wall_time(&plan(&[&flags[..3], &["kanal,flume,tokio-mpsc"], &flags[4..], &more].concat()));
        let run = ns(1_000_000) + RUN_COST + ns(WARMUP_MESSAGES) + RUN_COST;
        let runs = Duration::from_secs_f64(run.as_secs_f64() * 3.0 * (1.0 + ASSUMED_SCREENED_SHARE));
        let close = |a: Duration, b: Duration| a.abs_diff(b) < Duration::from_micros(1);
        assert!(close(three.screening, runs + ROUND_COST * 2), "{three:?}");
        // Three times the budget, and a round of three samples past it.
        assert_eq!(three.duels, Duration::from_millis(6000) + (ns(1_000_000) + RUN_COST) * 3);
        // A 1,200-byte record by value: ASSUMED_NS_PER_RECORD_BYTE more a message for each byte past 48.
        let record = wall_time(&plan(&[&flags[..], &more, &["--record-bytes", "1200"]].concat()));
        let per = ASSUMED_NS_PER_MESSAGE as f64 + ASSUMED_NS_PER_RECORD_BYTE * 1152.0;
        let ns = |messages: u64| Duration::from_secs_f64(messages as f64 * per / 1e9);
        let run = ns(1_000_000) + RUN_COST + ns(WARMUP_MESSAGES) + RUN_COST;
        assert!(close(record.screening, run * 2 + ROUND_COST * 2), "{record:?}");
    }

    #[test]
    fn the_duels_go_on_past_their_budget_for_half_the_nominal_time_at_most() {
        let (screening, budget) = (Duration::from_secs(200), Duration::from_secs(100));
        assert_eq!(duels_bound(budget, screening), Duration::from_secs(250));
        assert_eq!(duels_bound(Duration::ZERO, screening), Duration::ZERO, "--max-time 0: no duels");
        let time = WallTime { screening, duels: budget };
        assert_eq!((time.total(), time.longest()), (Duration::from_secs(300), Duration::from_secs(450)));
    }

    #[test]
    fn the_end_says_when_the_estimate_was_more_than_one_and_a_half_times_off() {
        let (ten, second) = (Duration::from_secs(10), Duration::from_secs(1));
        assert_eq!(off_line(ten, ten * 3 / 2, (0.5, true)), None);
        assert_eq!(off_line(ten, ten * 2 / 3 + second, (0.0, false)), None);
        let noisy = off_line(ten, ten * 2, (0.17, true)).unwrap();
        assert!(
            noisy.contains("took 20s, 2.0× the estimate of about 10s: the host was noisy: 17% of the samples"),
            "{noisy}"
        );
        let calm = off_line(ten, ten * 2, (0.01, false)).unwrap();
        assert!(calm.contains("the estimate fell short for this run (1% of the samples"), "{calm}");
        let fast = off_line(ten, ten / 2, (0.0, false)).unwrap();
        assert!(fast.contains("0.5× the estimate of about 10s: this machine was faster"), "{fast}");
    }
}
