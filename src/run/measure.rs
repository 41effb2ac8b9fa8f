//! How a run is timed: build the runtime, spawn a run, start the clock only once every
//! task waits at the gate, stop it when the receiver and all senders are done.
//! Silent: returns data, prints nothing.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::future::{AbortHandle, Abortable};
use serde::{Deserialize, Serialize};
use tokio::runtime::{Builder, Runtime};

use super::allocs::{self, AllocCount};
use super::latency::Latency;
use super::reading::{self, Reading};
use super::scenario::{Pacing, Prepare};
use super::stop::Timer;
use super::verify::Status;
use super::workload::Workload;

named! {
    /// Which tokio scheduler runs the tasks.
    pub enum RuntimeKind {
        /// The work-stealing scheduler with `--workers` worker threads.
        #[default]
        MultiThread => "multi-thread",
        /// Everything on one thread.
        CurrentThread => "current-thread",
    }
}

impl RuntimeKind {
    /// A fresh runtime of this kind, `workers` threads for multi-thread; with `timer`, its time
    /// driver too (paced runs need it; the others go without). Worker threads add their
    /// allocation counts to the totals as they stop ([`allocs::flush_thread`]).
    pub fn build(self, workers: usize, timer: bool) -> io::Result<Runtime> {
        let mut builder = match self {
            RuntimeKind::MultiThread => Builder::new_multi_thread(),
            RuntimeKind::CurrentThread => Builder::new_current_thread(),
        };
        // A current-thread runtime ignores it.
        builder.worker_threads(workers);
        if timer {
            builder.enable_time();
        }
        builder.on_thread_stop(allocs::flush_thread).build()
    }
}

/// One timed run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sample {
    /// Wall time from opening the gate to the last task finishing, or to the receiver's stop
    /// at the sample's bound ([`Sample::bounded`]).
    pub elapsed: Duration,
    /// Process CPU time (user + system, all threads) over the same interval.
    pub cpu: Duration,
    /// What the receiver found.
    pub status: Status,
    /// Payload bytes received.
    pub bytes: u64,
    /// Send→receive latency percentiles, with `--latency`.
    pub latency: Option<Latency>,
    /// The mean interval between a task's bursts, with `--pace`.
    pub pace_actual: Option<Duration>,
    /// Bursts sent and overflowed, and how late they started, with `--pace`.
    pub pacing: Option<Pacing>,
    /// The receiver's latency histogram, with `--latency`; across processes, the text
    /// [`super::latency::encode`] writes.
    #[serde(default, with = "super::latency::text")]
    pub latency_histogram: Option<super::latency::Shared>,
    /// The process's resident set, in bytes, before the sample's runtime was built and after it
    /// was torn down (filled in by [`guarded_sample`]; `None` where /proc/self/statm is missing).
    pub resident: Option<(u64, u64)>,
    /// Allocations inside the clock, with `--count-allocs` (filled in by [`guarded_sample`]
    /// once every thread of the sample has stopped).
    pub allocs: Option<AllocCount>,
    /// Messages the senders dropped on a full channel (`--send try`); 0 otherwise.
    pub dropped: u64,
    /// Involuntary context switches of the whole process over the clock (`ru_nivcsw` of
    /// `getrusage`): a thread preempted by another runnable thread or process. `None` where
    /// it cannot be read.
    pub involuntary_switches: Option<u64>,
    /// Time the hypervisor ran something else while this machine's CPUs wanted to run, over
    /// the clock: the steal field of /proc/stat's `cpu` line, all CPUs, in its 10 ms ticks.
    /// `None` where /proc/stat has none (not Linux).
    pub steal: Option<Duration>,
    /// How long the process's threads waited to run over the clock, all threads together
    /// (`run_delay`); `None` where schedstat cannot be read, and from a baseline build that
    /// does not send it.
    #[serde(default)]
    pub run_delay: Option<Duration>,
    /// The bound the sample was stopped at, and the messages it had taken by then
    /// (`super::stop`); `None` when it ran every message.
    #[serde(default)]
    pub bounded: Option<Bounded>,
    /// The machine's speed read right before the sample (filled in by [`guarded_sample`]);
    /// `None` from a baseline build that does not send it.
    #[serde(default)]
    pub reading: Option<Reading>,
}

/// A sample stopped at its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounded {
    /// How long the sample could run: [`Bound::cut`] times its group's fastest sample.
    pub bound: Duration,
    /// Messages the receiver took before it stopped.
    pub taken: u64,
}

/// How long a sample of a channel far behind its group may run (`crate::sweep`): `cut` times
/// the fastest full sample of its group measured before it, in an earlier round or its own,
/// and never less than `floor`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    /// The multiple of the group's fastest sample.
    pub cut: f64,
    /// The shortest bound: short samples, whose spread on a busy host is widest, run in full.
    pub floor: Duration,
    /// The group's fastest sample that ran every message; `None` before there is one.
    pub fastest: Option<Duration>,
}

impl Bound {
    /// The same bound, knowing the fastest full sample `here` too (its round's so far).
    pub fn knowing(self, here: Option<Duration>) -> Bound {
        Bound { fastest: self.fastest.into_iter().chain(here).min(), ..self }
    }

    /// How long the sample may run; `None` until the group has a full sample.
    pub fn limit(self) -> Option<Duration> {
        self.fastest.map(|fastest| fastest.mul_f64(self.cut).max(self.floor))
    }
}

impl Sample {
    /// A sample of nothing but a wall time, a CPU time and a status: a failure, or what a
    /// measured sample fills in.
    pub fn failed(elapsed: Duration, cpu: Duration, status: Status) -> Self {
        Self { elapsed, cpu, status, ..Self::default() }
    }

    /// Messages delivered of the `messages` sent: all of them, less those dropped under
    /// `--send try`; those taken before the bound when the sample was stopped at one.
    pub fn delivered(&self, messages: u64) -> u64 {
        self.bounded.map_or(messages.saturating_sub(self.dropped), |bounded| bounded.taken)
    }

    /// Wall nanoseconds per message delivered (of `messages` sent): under `--send try` the
    /// dropped ones do not count, so a channel cannot look fast by dropping. A sample that
    /// delivered nothing counts as one message.
    pub fn ns_per_message(&self, messages: u64) -> f64 {
        self.elapsed.as_nanos() as f64 / self.delivered(messages).max(1) as f64
    }

    /// Payload megabytes (10^6 bytes) received per second of wall time.
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE) / 1e6
    }
}

/// Runs `workload` over `channel` once on `runtime` and times it. The runtime needs its
/// timer if the workload is paced.
pub fn sample(runtime: &Runtime, prepare: Prepare, workload: &Workload) -> Sample {
    runtime.block_on(timed_run(prepare, workload, false, (None, 0.0)))
}

/// One run of `workload`, timed; stopped once `bound` has passed, if one is given; `slowed`
/// longer by the share the faults build's injected slow stretch asks (`super::slow::stretch`).
async fn timed_run(
    prepare: Prepare,
    workload: &Workload,
    count_allocs: bool,
    (bound, slowed): (Option<Duration>, f64),
) -> Sample {
    let prepared = prepare(workload);
    // A thread that cannot start leaves the run unbounded.
    let timer = bound.and_then(|bound| Timer::new(prepared.signal(), bound).ok());
    prepared.all_ready().await;
    // Started before the clock, so that its thread's wake-up and return to sleep fall outside
    // it; the bound then counts from the reads below, microseconds early.
    if let Some(timer) = &timer {
        timer.start(Instant::now());
    }
    let steal_start = steal_time();
    let delay_start = run_delay();
    allocs::set_window(allocs::COUNTING, count_allocs);
    let usage_start = usage();
    let start = Instant::now();
    prepared.release();
    let delivery = prepared.finish().await;
    super::slow::stretch(start, slowed);
    // A run stopped at its bound is timed to the stop: its senders' teardown is not its messages'.
    let elapsed = delivery.stopped.map_or_else(|| start.elapsed(), |(at, _)| at.duration_since(start));
    let usage_end = usage();
    if let Some(timer) = timer {
        timer.finish();
    }
    allocs::set_window(allocs::COUNTING, false);
    let steal = steal_time().zip(steal_start).map(|(end, start)| end.saturating_sub(start));
    let run_delay = run_delay().zip(delay_start).map(|(end, start)| end.saturating_sub(start));
    let usage = usage_start.zip(usage_end).map(|((cpu, switches), (cpu_end, switches_end))| {
        (cpu_end.saturating_sub(cpu), switches_end.saturating_sub(switches))
    });
    let mut status = delivery.status;
    if let (true, Err(error)) = (status.is_ok(), workload.sink.check(delivery.bytes, workload.keep_sink)) {
        status = Status::Sink(error);
    }
    Sample {
        bytes: delivery.bytes,
        latency: delivery.latency.as_ref().and_then(|latency| latency.finish()),
        latency_histogram: delivery.latency.and_then(|latency| latency.into_histogram()),
        pace_actual: delivery.pace_actual,
        pacing: delivery.pacing,
        dropped: delivery.dropped,
        involuntary_switches: usage.map(|(_, switches)| switches),
        steal,
        run_delay,
        bounded: delivery.stopped.zip(bound).map(|((_, taken), bound)| Bounded { bound, taken }),
        ..Sample::failed(elapsed, usage.map_or(Duration::ZERO, |(cpu, _)| cpu), status)
    }
}

/// One sample to take: a channel (by name; its scenario once resolved) under a workload on a
/// fresh runtime, after `warmups` unrecorded warm-up runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// The channel's registry name.
    pub channel: String,
    /// The channel's scenario: resolved from its name in the process that measures it.
    #[serde(skip)]
    pub prepare: Option<Prepare>,
    /// The runtime.
    pub runtime: RuntimeKind,
    /// Worker threads of the multi-thread runtime (1 for current-thread).
    pub workers: usize,
    /// What the sample runs.
    pub workload: Workload,
    /// Unrecorded warm-up runs before the sample.
    pub warmups: usize,
    /// How long the sample and its warm-ups may run; `None`: to their last message.
    #[serde(default)]
    pub bound: Option<Bound>,
    /// The share the sample, its warm-ups and its reading of the machine run longer: a slow
    /// stretch of the machine injected on purpose (the faults build's `super::slow::Stretch`);
    /// 0 otherwise.
    #[serde(default)]
    pub slowed: f64,
}

/// How long a [`guarded_sample`] may take, and the flag that interrupts it.
///
/// The waiting thread sleeps without periodic wake-ups, so nothing of the harness runs
/// while a sample is timed: it blocks on a socket until the sample's thread writes to it
/// as it ends, SIGINT writes to it ([`Watchdog::wake_on`]), or the timeout passes.
#[derive(Debug, Clone)]
pub struct Watchdog {
    /// The most a sample (with its warm-ups) may take.
    pub timeout: Duration,
    /// Set by the SIGINT handler.
    pub interrupted: Arc<AtomicBool>,
    /// The waiter reads `.0`; the sample's thread and the signal handler write to `.1`.
    wake: Arc<(UnixStream, UnixStream)>,
}

impl Watchdog {
    /// A watchdog for samples of at most `timeout`, interrupted by `interrupted`.
    pub fn new(timeout: Duration, interrupted: Arc<AtomicBool>) -> io::Result<Self> {
        Ok(Self { timeout, interrupted, wake: Arc::new(UnixStream::pair()?) })
    }

    /// Makes `signal` wake a waiting [`guarded_sample`], which then looks at `interrupted`.
    /// Register the handler that sets `interrupted` first: handlers run in the order registered.
    pub fn wake_on(&self, signal: libc::c_int) -> io::Result<()> {
        signal_hook::low_level::pipe::register(signal, self.wake.1.try_clone()?).map(|_| ())
    }

    /// Whether the user asked the sweep to stop.
    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    /// Throws away wake-ups left from before: a signal between samples, a sample whose
    /// result was taken before its wake-up was read.
    fn drain(&self) -> io::Result<()> {
        let reader = &self.wake.0;
        reader.set_nonblocking(true)?;
        let mut buffer = [0u8; 64];
        while matches!((&*reader).read(&mut buffer), Ok(1..)) {}
        reader.set_nonblocking(false)
    }

    /// Sleeps until woken or `wait` has passed.
    fn sleep(&self, wait: Duration) {
        let reader = &self.wake.0;
        let _ = reader.set_read_timeout(Some(wait.max(Duration::from_micros(1))));
        let _ = (&*reader).read(&mut [0u8; 64]);
    }
}

/// Wakes the watchdog when dropped: when the sample's thread ends, panicking or not.
struct WakeOnDrop(Arc<(UnixStream, UnixStream)>);

impl Drop for WakeOnDrop {
    fn drop(&mut self) {
        let _ = (&self.0.1).write(&[1]);
    }
}

/// Takes `job`: its `warmups` unrecorded runs of its workload's [`Workload::warm_up`], then one
/// sample of its workload (spawned by its channel's scenario), on a fresh runtime on a thread of
/// its own, and waits for it at most `watchdog.timeout`. A sample that finishes is torn down
/// completely (runtime, worker threads, its thread) before this returns. One that overstays is
/// abandoned: its runtime is told to stop and shuts down in the background without being waited
/// for, so a hung channel cannot hang the sweep; its sample has status [`Status::Timeout`].
/// `None` when the user interrupted it: nothing was measured.
pub fn guarded_sample(job: &Job, watchdog: &Watchdog) -> anyhow::Result<Option<Sample>> {
    let prepare = job.prepare.with_context(|| format!("no channel named {:?} in this binary", job.channel))?;
    let (workload, warm_up, warmups) = (job.workload.clone(), job.workload.warm_up(), job.warmups);
    let (bound, slowed) = (job.bound.and_then(Bound::limit), job.slowed);
    let resident_start = resident_bytes();
    let runtime = job
        .runtime
        .build(job.workers, workload.pace.is_some())
        .with_context(|| format!("cannot start a {} tokio runtime", job.runtime.name()))?;
    let count_allocs = workload.count_allocs;
    if count_allocs {
        allocs::reset();
    }
    watchdog.drain().context("cannot reset the watchdog's wake-up socket")?;
    let (finished, result) = std::sync::mpsc::channel();
    let (abort, registration) = AbortHandle::new_pair();
    let wake = WakeOnDrop(watchdog.wake.clone());
    let thread = std::thread::Builder::new()
        .name("channel-bench sample".to_owned())
        .spawn(move || {
            // Dropped in reverse order: the result channel first, then the wake-up, so the
            // watchdog finds the result (or that there is none) when it wakes.
            let _wake = wake;
            let finished = finished;
            // The runtime's workers are parked until the first run: nothing of the sample runs beside it.
            let reading = reading::take(slowed);
            let runs = async {
                for _ in 0..warmups {
                    timed_run(prepare, &warm_up, false, (bound, slowed)).await;
                }
                timed_run(prepare, &workload, count_allocs, (bound, slowed)).await
            };
            let outcome = runtime.block_on(Abortable::new(runs, registration)).ok();
            let outcome = outcome.map(|sample| Sample { reading: Some(reading), ..sample });
            match outcome {
                // Dropping waits for the worker threads to exit, so no teardown overlaps the next sample.
                Some(_) => drop(runtime),
                // Tasks stuck in a hung channel are dropped, not waited for.
                None => runtime.shutdown_background(),
            }
            allocs::flush_thread();
            let _ = finished.send(outcome);
        })
        .context("cannot start a thread for the sample")?;

    let cpu_start = usage().map_or(Duration::ZERO, |(cpu, _)| cpu);
    let start = Instant::now();
    loop {
        match result.try_recv() {
            Ok(Some(mut sample)) => {
                // The thread ends right after sending; joining makes sure it has.
                let _ = thread.join();
                sample.allocs = count_allocs.then(allocs::totals);
                sample.resident = resident_start.zip(resident_bytes());
                return Ok(Some(sample));
            }
            Ok(None) | Err(TryRecvError::Disconnected) => {
                let status = Status::Panicked("the sample's thread ended without a result".to_owned());
                return Ok(Some(Sample::failed(start.elapsed(), Duration::ZERO, status)));
            }
            Err(TryRecvError::Empty) => {}
        }
        if watchdog.is_interrupted() {
            abort.abort();
            return Ok(None);
        }
        let elapsed = start.elapsed();
        if elapsed >= watchdog.timeout {
            abort.abort();
            let cpu = usage().map_or(Duration::ZERO, |(cpu, _)| cpu).saturating_sub(cpu_start);
            return Ok(Some(Sample::failed(elapsed, cpu, Status::Timeout(watchdog.timeout))));
        }
        watchdog.sleep(watchdog.timeout - elapsed);
    }
}

/// The process's resident set in bytes: the second figure of [`statm`]. Read outside the clock,
/// so it costs the measured run nothing. `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    statm()?.get(1).copied()
}

/// /proc/self/statm's figures in bytes (each a count of pages there): the whole mapping, the
/// resident set, shared, text, 0, data + stack, 0. `None` where it cannot be read.
pub fn statm() -> Option<Vec<u64>> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok().filter(|&page| page > 0)?;
    statm.split_whitespace().map(|field| field.parse::<u64>().ok().map(|pages| pages.saturating_mul(page))).collect()
}

/// What `getrusage(RUSAGE_SELF)` says of the whole process so far: user + system CPU time, and
/// involuntary context switches.
fn usage() -> Option<(Duration, u64)> {
    // SAFETY: rusage is plain integers, so all-zero is a valid value; getrusage only writes
    // into the struct it is given, and RUSAGE_SELF is always a valid `who`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let to_duration =
        |time: libc::timeval| Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64);
    Some((to_duration(usage.ru_utime) + to_duration(usage.ru_stime), usage.ru_nivcsw as u64))
}

/// The machine's steal time so far, all CPUs: /proc/stat's `cpu` line, its eighth number,
/// in clock ticks of `sysconf(_SC_CLK_TCK)`. `None` where there is no such line.
fn steal_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks = parse_steal_ticks(&stat)?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_nanos(ticks.saturating_mul(1_000_000_000 / per_second as u64)))
}

/// How long this process's threads have waited to run, all of them together: the second field
/// of each `/proc/self/task/*/schedstat` (nanoseconds runnable but not running). A thread that
/// ends between two readings takes its delay with it, so a sample reads its threads while they
/// live: the runtime's workers are up before the clock starts and down after it stops. `None`
/// where there is no schedstat.
fn run_delay() -> Option<Duration> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let delays = tasks.filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok());
    let total: Option<u64> = delays.map(|text| parse_run_delay(&text)).sum();
    total.map(Duration::from_nanos)
}

/// The run delay of one schedstat line: its second number, nanoseconds.
fn parse_run_delay(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

/// The steal ticks of the `cpu` line of /proc/stat's text.
fn parse_steal_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|line| line.split_whitespace().next() == Some("cpu"))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

#[cfg(test)]
mod tests;
