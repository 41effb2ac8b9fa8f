//! The validated sweep: every combination known to be possible before anything runs, and
//! [`Plan::cells`], the cells in the order the sweep measures them.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::*;
use crate::error::usage;
use crate::registry::{self, ChannelEntry};
use crate::results::band::TaskBand;
use crate::results::decision::Weigh;
use crate::run::measure::RuntimeKind;
use crate::run::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use crate::run::rounds::Isolation;
use crate::run::sink::Sink;
use crate::run::workload::{Merge, Mode, Pace, Phase, RecordBytes, SendMode, Workload};

mod cell;
pub mod estimate;

use crate::results::unkept::{self, Unkept};
pub use cell::Cell;

/// `--workers 32 on 2 cores: …`: what the answer of a run with more workers than cores measures.
pub fn oversubscribed(workers: &str, cores: usize) -> String {
    format!(
        "--workers {workers} on {cores} cores: the runtime's worker threads share the cores, so the multi-thread \
         figures measure oversubscription, not a machine with that many cores"
    )
}

/// A validated sweep: everything the run needs, every combination known to be possible.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Messages moved per run when not paced ([`Plan::messages_at`] gives a cell's).
    pub messages: u64,
    /// `--capacity`: the capacities swept, in sweep order.
    pub capacities: Vec<usize>,
    /// `--task-capacity`: merged-recv's slots per task's channel, in sweep order, instead of
    /// sharing `capacities`; `None` to share them.
    pub task_capacities: Option<Vec<usize>>,
    /// Task counts, in sweep order.
    pub tasks: Vec<usize>,
    /// Channels, in sweep order.
    pub channels: Vec<&'static ChannelEntry>,
    /// Modes, in sweep order.
    pub modes: Vec<Mode>,
    /// Runtimes, in sweep order.
    pub runtimes: Vec<RuntimeKind>,
    /// Worker-thread counts of the multi-thread runtime, in sweep order.
    pub workers: Vec<usize>,
    /// Payload size per message.
    pub payload: PayloadSize,
    /// Seed of varying payload sizes.
    pub seed: u64,
    /// Merge strategies of merged-recv, in sweep order.
    pub merges: Vec<Merge>,
    /// Bursts at an interval, or `None` for saturating senders.
    pub pace: Option<Pace>,
    /// How long each paced task sends (`--duration`): the frames a task sends are this over
    /// the pace's interval (at least one). Unused when not paced.
    pub duration: Duration,
    /// When paced tasks start, in sweep order (one, unused, when not paced).
    pub phases: Vec<Phase>,
    /// Whether senders wait for a slot or drop the message, in sweep order.
    pub sends: Vec<SendMode>,
    /// `--batch`: the most messages the receiver takes per wake-up, in sweep order.
    pub batches: Vec<usize>,
    /// `--work-per-batch`: the receiver's busy spin after each batch, if any.
    pub work_per_batch: Option<Duration>,
    /// `--record-bytes`: the kinds of message, in sweep order.
    pub records: Vec<RecordBytes>,
    /// Whether latency is recorded.
    pub latency: bool,
    /// What the receiver does with each payload.
    pub sink: Sink,
    /// Whether the sink's file stays after each sample.
    pub keep_sink: bool,
    /// Whether allocations are counted.
    pub count_allocs: bool,
    /// Unrecorded runs per cell.
    pub warmup: usize,
    /// Channels never screened out and in every duel round of their groups: `--keep`, and a
    /// program's own channels (`app::main_with`).
    pub keep: Vec<&'static str>,
    /// The figures the room's decision weighs, in order (`--weigh`); `None`: the default.
    pub weigh: Option<crate::results::decision::Weighing>,
    /// Screening rounds (`--samples`).
    pub samples: usize,
    /// Time per cell, averaged over the sweep, that the duels after screening may spend: their
    /// time is this × [`Plan::duel_cells`].
    pub max_time: Duration,
    /// Time a sample may run before the watchdog abandons it.
    pub timeout: Duration,
    /// Explicit CSV path, or `None` for the timestamped default.
    pub out: Option<PathBuf>,
    /// Overwrite the existing files of the output set (truncated in place) and the sink's file.
    pub force: bool,
    /// Where the rounds are measured: each in a fresh process of this binary unless the caller
    /// says otherwise (`app::main_with_args`).
    pub isolation: Isolation,
    /// How many builds measure every cell of a round: 1, or 2 in a paired A/B run.
    pub builds: usize,
}

impl Plan {
    /// What the plan and its answer say of it, one line each: a `--workers` count above this
    /// host's cores, which the sweep measures oversubscribed; and [`Plan::unread_payload`].
    pub fn notes(&self) -> Vec<String> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let measured = self.runtimes.contains(&RuntimeKind::MultiThread);
        let above: Vec<String> =
            self.workers.iter().filter(|&&workers| workers > cores).map(|w| w.to_string()).collect();
        let oversubscription = (measured && !above.is_empty()).then(|| oversubscribed(&above.join(","), cores));
        oversubscription.into_iter().chain(self.unread_payload()).collect()
    }

    /// The requests this plan's cells cannot keep as asked, and what they measure instead
    /// ([`unkept::unkept`]).
    pub fn unkept(&self) -> Vec<Unkept> {
        let workloads = self.tasks.iter().flat_map(|&tasks| self.workloads(tasks));
        unkept::unkept(workloads.map(|workload| unkept::Shape::of(&workload)))
    }

    /// One line when `--payload` is not the default and no `--sink` reads the payloads: a
    /// payload is a slice of a buffer made before the clock starts (a reference-count bump), so
    /// its size moves no byte and changes nothing measured.
    pub fn unread_payload(&self) -> Option<String> {
        (self.payload != PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES) && self.sink.path().is_none()).then(|| {
            format!(
                "--payload {} without --sink changes nothing measured: a payload is a reference-counted slice, no byte \
                 of it is moved unless a sink reads it (--sink file:PATH); its cells only make a setting of their own",
                self.payload
            )
        })
    }

    /// Messages a run of `tasks` sends: `--messages` flat out; under `--pace`, every task's
    /// frames (bursts) of `--duration` (over the interval, at least one) times the burst.
    pub fn messages_at(&self, tasks: usize) -> u64 {
        let Some(pace) = self.pace else { return self.messages };
        let frames = self.duration.as_nanos() / pace.interval.as_nanos().max(1);
        tasks as u64 * u64::try_from(frames).unwrap_or(u64::MAX).max(1) * u64::from(pace.burst)
    }

    /// Every workload of one task count: mode, then merge (every `--merge` in merged-recv, one,
    /// unused, otherwise), then capacity (every `--capacity`, or in merged-recv every
    /// `--task-capacity` when given), then phase (every `--phase` when paced, one, unused,
    /// otherwise), then send, then batch, then record.
    pub fn workloads(&self, tasks: usize) -> Vec<Workload> {
        let phases = if self.pace.is_some() { &self.phases[..] } else { &self.phases[..1] };
        let mut workloads = Vec::new();
        for &mode in &self.modes {
            let merges = if mode == Mode::MergedRecv { &self.merges[..] } else { &self.merges[..1] };
            let capacities: Vec<(usize, Option<usize>)> = match (mode, &self.task_capacities) {
                (Mode::MergedRecv, Some(slots)) => slots.iter().map(|&n| (n.saturating_mul(tasks), Some(n))).collect(),
                _ => self.capacities.iter().map(|&capacity| (capacity, None)).collect(),
            };
            for &merge in merges {
                for &(capacity, task_capacity) in &capacities {
                    for &phase in phases {
                        let sends = (self.sends.iter())
                            .flat_map(|&send| self.batches.iter().map(move |&batch| (send, batch)))
                            .flat_map(|(send, batch)| self.records.iter().map(move |&record| (send, batch, record)));
                        for (send, batch, record) in sends {
                            workloads.push(Workload {
                                payload: self.payload,
                                seed: self.seed,
                                merge,
                                pace: self.pace.map(|pace| Pace { phase, ..pace }),
                                latency: self.latency,
                                sink: self.sink.clone(),
                                keep_sink: self.keep_sink,
                                count_allocs: self.count_allocs,
                                send,
                                batch,
                                work_per_batch: self.work_per_batch,
                                record,
                                task_capacity,
                                ..Workload::new(mode, tasks, self.messages_at(tasks), capacity)
                            });
                        }
                    }
                }
            }
        }
        workloads
    }

    /// Every cell (channel × mode and merge × capacity × runtime and workers × tasks × phase ×
    /// send), in the order the sweep measures them: by runtime, then worker count, then task
    /// count, then mode, then merge, then capacity, then phase, then send, then channel.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for &runtime in &self.runtimes {
            // Every `--workers` for multi-thread, 1 otherwise.
            let workers = if runtime == RuntimeKind::MultiThread { self.workers.clone() } else { vec![1] };
            for workers in workers {
                for &tasks in &self.tasks {
                    for workload in self.workloads(tasks) {
                        for &channel in &self.channels {
                            cells.push(Cell { channel, runtime, workers, workload: workload.clone() });
                        }
                    }
                }
            }
        }
        cells
    }

    /// The cells the duels' time counts (`--max-time` × this): every cell, a cell of a band of
    /// task counts ([`TaskBand`]) the plan measures at fewer task counts than the default sweep
    /// counted as the default's over the plan's (a band the default does not measure, as its
    /// large band). A band's answer averages its task counts' estimates, so a band of one task
    /// count needs as many duel rounds as one of four.
    pub fn duel_cells(&self) -> f64 {
        let counts = |tasks: &[usize], band| tasks.iter().filter(|&&t| TaskBand::of(t as u64) == band).count();
        let default = |band| match counts(&DEFAULT_TASKS, band) {
            0 => counts(&DEFAULT_TASKS, TaskBand::Large),
            n => n,
        };
        let weight = |tasks: usize| {
            let band = TaskBand::of(tasks as u64);
            (default(band) as f64 / counts(&self.tasks, band).max(1) as f64).max(1.0)
        };
        self.cells().iter().map(|cell| weight(cell.workload.tasks)).sum()
    }

    /// The plan of a sweep over the built-in channels and `extra`, a caller's own
    /// (`app::main_with`): `--channels` accepts their names too, and without it the sweep
    /// runs them after the built-in ones.
    pub fn with_extra(cli: SweepArgs, extra: &'static [ChannelEntry]) -> anyhow::Result<Plan> {
        check_load(&cli)?;
        let quick = cli.quick;
        let channels: Vec<&'static ChannelEntry> = match &cli.channels {
            None => registry::CHANNELS.iter().chain(extra).collect(),
            Some(names) => named(names, extra)?,
        };
        let keep = keep(cli.keep.as_deref().unwrap_or_default(), &channels, extra)?;
        companions(&cli)?;
        let tasks = cli.tasks.map(|items| items.into_iter().flat_map(|item| item.0).collect());
        let max_time = cli.max_time.unwrap_or(if quick { QUICK_MAX_TIME_SECS } else { DEFAULT_MAX_TIME_SECS });
        let mut plan = Plan {
            messages: cli.messages.unwrap_or(if quick { QUICK_MESSAGES } else { DEFAULT_MESSAGES }),
            duration: cli.duration.unwrap_or(DEFAULT_DURATION),
            phases: cli.phase.clone().unwrap_or_else(|| vec![Phase::default()]),
            sends: cli.send.clone().unwrap_or_else(|| vec![SendMode::default()]),
            batches: cli.batch.clone().unwrap_or_else(|| vec![1]),
            work_per_batch: cli.work_per_batch,
            records: cli.record_bytes.clone().unwrap_or_else(|| vec![RecordBytes::Shared]),
            capacities: cli.capacity.unwrap_or_else(|| DEFAULT_CAPACITIES.to_vec()),
            task_capacities: cli.task_capacity.clone(),
            tasks: tasks.unwrap_or_else(|| if quick { QUICK_TASKS.to_vec() } else { DEFAULT_TASKS.to_vec() }),
            channels,
            modes: cli.modes.unwrap_or_else(|| Mode::ALL.to_vec()),
            runtimes: cli.runtimes.unwrap_or_else(|| RuntimeKind::ALL.to_vec()),
            workers: cli.workers.unwrap_or_else(|| vec![std::thread::available_parallelism().map_or(1, |n| n.get())]),
            payload: cli.payload,
            seed: cli.seed,
            merges: cli.merge.clone().unwrap_or_else(|| vec![Merge::default()]),
            pace: cli.pace.map(|interval| Pace {
                interval,
                burst: cli.burst.unwrap_or(DEFAULT_BURST),
                phase: cli.phase.as_ref().and_then(|phases| phases.first().copied()).unwrap_or_default(),
            }),
            latency: cli.latency,
            sink: cli.sink.clone(),
            keep_sink: cli.keep_sink,
            count_allocs: cli.count_allocs,
            warmup: cli.warmup,
            keep,
            weigh: cli.weigh.clone(),
            samples: cli.samples.unwrap_or(if quick { QUICK_SAMPLES } else { DEFAULT_SAMPLES }),
            max_time: Duration::from_secs_f64(max_time),
            timeout: Duration::from_secs_f64(cli.timeout),
            out: cli.out,
            force: cli.force,
            isolation: Isolation::Process,
            builds: 1,
        };
        plan.validate()?;
        Ok(plan)
    }

    fn validate(&mut self) -> anyhow::Result<()> {
        no_duplicates("--tasks", &self.tasks)?;
        no_duplicates("--workers", &self.workers)?;
        no_duplicates("--capacity", &self.capacities)?;
        no_duplicates("--task-capacity", self.task_capacities.iter().flatten())?;
        no_duplicates("--modes", &self.modes)?;
        no_duplicates("--runtimes", &self.runtimes)?;
        no_duplicates("--merge", &self.merges)?;
        no_duplicates("--phase", &self.phases)?;
        no_duplicates("--send", &self.sends)?;
        no_duplicates("--batch", &self.batches)?;
        no_duplicates("--record-bytes", &self.records)?;
        if self.payload.max() > u32::MAX as usize {
            return Err(usage(format!("--payload {} is larger than {} bytes: lower it", self.payload, u32::MAX)));
        }
        // Whose the sink's file is ([`Sink::claim`]): only a new path, a regular file under
        // `--force`, or the null device is written.
        self.sink = self.sink.clone().claim(self.force).map_err(usage)?;
        for &tasks in &self.tasks {
            if self.pace.is_some() {
                // Every paced task sends at least one frame; only the per-task count can overflow.
                if self.messages_at(tasks) / tasks as u64 > u64::from(u32::MAX) {
                    return Err(usage(format!(
                        "--duration {} gives a task of --tasks {tasks} more than {} messages: shorten --duration",
                        humantime::format_duration(self.duration),
                        u32::MAX
                    )));
                }
            } else if tasks as u64 > self.messages {
                return Err(usage(format!(
                    "--tasks {tasks} is more than --messages {}: every task must send at least one message",
                    self.messages
                )));
            }
            if tasks >= u32::MAX as usize || self.messages.div_ceil(tasks as u64) > u64::from(u32::MAX) {
                return Err(usage(format!(
                    "--messages {} over --tasks {tasks} gives a task more than {} messages: lower --messages or raise --tasks",
                    self.messages,
                    u32::MAX
                )));
            }
            self.check_pace(tasks)?;
        }
        self.check_capacity()?;
        // Last: the estimate walks every cell, which the checks above keep within reason.
        estimate::check_memory(self, estimate::available_memory())
    }

    /// A paced sample cannot be faster than its schedule; refuse one the watchdog would abandon.
    fn check_pace(&self, tasks: usize) -> anyhow::Result<()> {
        let workload = &self.workloads(tasks)[0];
        let (Some(pace), least) = (self.pace, workload.paced_duration()) else { return Ok(()) };
        if least >= self.timeout {
            return Err(usage(format!(
                "--pace {} with --burst {} makes a task of --tasks {tasks} send {} bursts, at least {:.1} s, \
                 which --timeout {} s would cut short: shorten --duration or raise --timeout",
                humantime::format_duration(pace.interval),
                pace.burst,
                workload.messages_for(0).div_ceil(pace.burst),
                least.as_secs_f64(),
                self.timeout.as_secs_f64()
            )));
        }
        Ok(())
    }

    /// Refuses a sweep in which no channel can run any cell: one cell a channel cannot hold
    /// ([`Cell::refusal`]) is a refused row of that channel, and the others run.
    fn check_capacity(&self) -> anyhow::Result<()> {
        let cells = self.cells();
        match cells.iter().map(Cell::refusal).collect::<Option<Vec<String>>>() {
            Some(reasons) => Err(usage(format!(
                "no channel can run any cell: {} (e.g. {}): raise --capacity or change --channels",
                reasons[0],
                cells[0].label()
            ))),
            None => Ok(()),
        }
    }
}

/// The channels a sweep follows: `named` (`--keep`, each among the sweep's `channels`) and the
/// program's own channels (`extra`) that it measures.
fn keep(
    named: &[String],
    channels: &[&'static ChannelEntry],
    extra: &'static [ChannelEntry],
) -> anyhow::Result<Vec<&'static str>> {
    no_duplicates("--keep", named)?;
    let find = |name: &String| {
        channels.iter().find(|entry| entry.name == name).map(|entry| entry.name).ok_or_else(|| {
            usage(format!("--keep: {name:?} is not among the channels this sweep measures: add it to --channels or drop it from --keep"))
        })
    };
    let mut keep = named.iter().map(find).collect::<anyhow::Result<Vec<_>>>()?;
    let own = channels.iter().filter(|entry| extra.iter().any(|own| own.name == entry.name));
    keep.extend(own.map(|entry| entry.name).filter(|name| !named.iter().any(|n| n == name)));
    Ok(keep)
}

/// The load's flags that only make sense together: under `--pace` the load is `--duration`
/// (not `--messages`), which must hold one frame at least.
fn check_load(cli: &SweepArgs) -> anyhow::Result<()> {
    match (cli.pace, cli.duration) {
        (Some(_), _) if cli.messages.is_some() => Err(usage(
            "--messages sizes a flat-out run; under --pace each task sends for --duration: \
             give --duration TIME instead of --messages",
        )),
        (None, Some(_)) => Err(usage(
            "--duration sets how long the bursts of --pace go on: give --pace INTERVAL too, or leave --duration out",
        )),
        (Some(interval), duration) if duration.unwrap_or(DEFAULT_DURATION) < interval => Err(usage(format!(
            "--duration {} is shorter than one frame of --pace {}: make --duration at least the interval",
            humantime::format_duration(duration.unwrap_or(DEFAULT_DURATION)),
            humantime::format_duration(interval)
        ))),
        _ => Ok(()),
    }
}

/// A usage error when `flag` lists a value twice.
pub(crate) fn no_duplicates<T: std::fmt::Display + Eq + std::hash::Hash>(
    flag: &str,
    values: impl IntoIterator<Item = T>,
) -> anyhow::Result<()> {
    let mut seen = HashSet::new();
    match values.into_iter().find_map(|value| seen.replace(value)) {
        Some(value) => Err(usage(format!("{flag} lists {value} twice: give each value once"))),
        None => Ok(()),
    }
}

/// The channels `names` (`--channels`) name, each once, among the built-in ones and `extra`.
pub(crate) fn named(names: &[String], extra: &'static [ChannelEntry]) -> anyhow::Result<Vec<&'static ChannelEntry>> {
    no_duplicates("--channels", names)?;
    let known = || registry::known().chain(extra);
    let find = |name: &String| {
        known().find(|entry| entry.name == name).ok_or_else(|| {
            let names: Vec<&str> = known().map(|entry| entry.name).collect();
            usage(format!("--channels: no channel named {name:?}; the channels are {}", names.join(", ")))
        })
    };
    names.iter().map(find).collect()
}

/// Refuses a flag given without the one it needs beside it, or for a mode the plan leaves out.
fn companions(cli: &SweepArgs) -> anyhow::Result<()> {
    let merged = cli.modes.as_ref().is_none_or(|modes| modes.contains(&Mode::MergedRecv));
    let refused = [
        (
            cli.phase.is_some() && cli.pace.is_none(),
            "--phase sets when the bursts of --pace start: give --pace INTERVAL too, or leave --phase out",
        ),
        (
            cli.burst.is_some() && cli.pace.is_none(),
            "--burst sets the burst of --pace: give --pace INTERVAL too, or leave --burst out",
        ),
        (
            cli.task_capacity.is_some() && !merged,
            "--task-capacity sizes merged-recv's channels, which --modes leaves out: add merged-recv or drop --task-capacity",
        ),
        (
            cli.merge.is_some() && !merged,
            "--merge applies to merged-recv, which --modes leaves out: add merged-recv or drop --merge",
        ),
        (
            cli.record_bytes.iter().flatten().any(|record| record.by_value().is_some())
                && cli.payload != PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES),
            "--payload sizes the shared message's buffer, which a record moved by value does not carry: leave \
             --payload out, or give --record-bytes shared",
        ),
        (
            cli.weigh.is_some() && cli.pace.is_none(),
            "--weigh orders what a paced room's decision weighs: give --pace INTERVAL too, or leave --weigh out",
        ),
        (
            cli.weigh.as_ref().is_some_and(|order| order.weighs(Weigh::P99)) && !cli.latency,
            "--weigh p99 weighs the latency --latency records: give --latency too, or leave p99 out of --weigh",
        ),
        (
            cli.keep_sink && cli.sink.path().is_none(),
            "--keep-sink keeps the file of --sink file:PATH: give --sink file:PATH too",
        ),
    ];
    refused.into_iter().find(|(wrong, _)| *wrong).map_or(Ok(()), |(_, why)| Err(usage(why)))
}
