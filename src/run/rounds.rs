//! Where a round's samples are taken ([`Isolation`]): each round in a fresh process of this
//! binary, or every round in this process. A channel's speed against another's can differ from
//! one process to the next (where its memory landed, which the pairing inside one process
//! cannot see); a process per round turns that into noise between rounds, which the paired
//! rounds measure and average, instead of an offset shared by the whole run.
//!
//! The parent writes the round's [`Job`]s to the child's stdin as one JSON document; the child
//! ([`serve`]) takes them in order and writes one JSON line per sample to its stdout as soon as
//! it is measured. Silent: nothing here prints.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use super::measure::Job;
use super::measure::{self, Sample, Watchdog};
use super::scenario::Prepare;
use super::verify::Status;

/// The hidden subcommand a child process is started with.
pub const SUBCOMMAND: &str = "take-round";

/// The version of the round a child is handed and the samples it answers with: a paired A/B
/// run pairs two builds only when both speak this one, and a child refuses a round of another.
/// It moves on whenever a field of the round changes what a child measures (2: a workload's
/// record moved by value), so that an older child never measures a round it cannot read in full.
pub const PROTOCOL: u32 = 2;

/// A binary that measures rounds, and the environment its processes get beyond this one's.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The binary, started with [`SUBCOMMAND`].
    pub exe: std::path::PathBuf,
    /// Variables set in its processes only.
    pub env: Vec<(String, String)>,
}

impl Launch {
    /// This binary (`current_exe`), with this process's environment.
    pub fn this() -> anyhow::Result<Launch> {
        let exe =
            std::env::current_exe().context("cannot find this binary to measure a round in a process of its own")?;
        Ok(Launch { exe, env: Vec::new() })
    }
}

/// Where the rounds of a sweep are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Each round in a fresh process of this binary (`current_exe`), started with
    /// [`SUBCOMMAND`]: what the channel-bench binary and any binary built on
    /// `app::main_with` do.
    Process,
    /// Every round in this process: for a harness (a test) whose executable is no
    /// channel-bench binary.
    InProcess,
}

impl Isolation {
    /// The warm-up runs before a sample, `warmup` being a cell's: every sample gets them in a
    /// process of its round's own (each is its cell's first there), only a cell's first sample
    /// in this process.
    pub fn warmups(self, first_of_cell: bool, warmup: usize) -> usize {
        if self == Isolation::Process || first_of_cell { warmup } else { 0 }
    }
}

/// What a child is given on its stdin.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    /// [`PROTOCOL`] of the parent; 0 from a parent older than the field.
    #[serde(default)]
    protocol: u32,
    /// The watchdog's limit per sample.
    timeout: Duration,
    jobs: Vec<Job>,
}

/// One line of a child's stdout: the sample of job `at`.
#[derive(Debug, Serialize, Deserialize)]
struct Taken {
    at: usize,
    sample: Sample,
}

/// What is called with each sample as it arrives, and the index of its job.
pub type Taker<'a> = dyn FnMut(usize, Sample) -> anyhow::Result<()> + 'a;

/// The process id of the child measuring now (0: none), for [`forward_stop`].
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Takes `jobs` in order, where `isolation` says, calling `taken(at, sample)` as each sample
/// of job `at` arrives. `Ok(false)` when the user interrupted the round (`watchdog`): the
/// samples before it were passed on, the one running was not measured.
///
/// In a child, a process killed by a signal in the middle of a job (a crash of the channel)
/// gives that job a failed sample saying so, and the round goes on in a new process; one that
/// exits with an error before its round is done is an error (the child printed it).
pub fn take(isolation: Isolation, jobs: &[Job], watchdog: &Watchdog, taken: &mut Taker) -> anyhow::Result<bool> {
    match isolation {
        Isolation::InProcess => take_here(jobs, watchdog, taken),
        Isolation::Process => take_in(&Launch::this()?, jobs, watchdog, taken),
    }
}

/// [`take`] in fresh processes of `launch`.
pub fn take_in(launch: &Launch, jobs: &[Job], watchdog: &Watchdog, taken: &mut Taker) -> anyhow::Result<bool> {
    let mut next = 0;
    while next < jobs.len() {
        match in_child(launch, &jobs[next..], watchdog, &mut |at, sample| taken(next + at, sample))? {
            Ended::All => return Ok(true),
            Ended::Interrupted => return Ok(false),
            Ended::Early { done, status } => {
                let failed = Status::Panicked(format!("the process measuring it ended: {status}"));
                taken(next + done, Sample::failed(Duration::ZERO, Duration::ZERO, failed))?;
                next += done + 1;
            }
        }
    }
    Ok(true)
}

/// Takes `jobs` in this process, each under `watchdog` (`measure::guarded_sample`).
fn take_here(jobs: &[Job], watchdog: &Watchdog, taken: &mut Taker) -> anyhow::Result<bool> {
    in_order(jobs, &mut |job| measure::guarded_sample(job, watchdog), taken)
}

/// What measures one job: its sample, or `None` when the user interrupted it.
pub type Measure<'a> = dyn FnMut(&Job) -> anyhow::Result<Option<Sample>> + 'a;

/// Takes a round's `jobs` one after another with `measure`, each bounded job's bound
/// (`measure::Bound`) knowing the round's fastest sample so far that ran every message; false
/// when the user interrupted one.
pub fn in_order(jobs: &[Job], measure: &mut Measure, taken: &mut Taker) -> anyhow::Result<bool> {
    let mut fastest: Option<Duration> = None;
    for (at, job) in jobs.iter().enumerate() {
        let job = Job { bound: job.bound.map(|bound| bound.knowing(fastest)), ..job.clone() };
        let Some(sample) = measure(&job)? else { return Ok(false) };
        if sample.status.is_ok() && sample.bounded.is_none() {
            fastest = Some(fastest.map_or(sample.elapsed, |fastest| fastest.min(sample.elapsed)));
        }
        taken(at, sample)?;
    }
    Ok(true)
}

/// How a child ended.
enum Ended {
    /// Every job was taken.
    All,
    /// The user stopped it.
    Interrupted,
    /// A signal ended it (`status`) after `done` jobs, in the middle of the next.
    Early { done: usize, status: ExitStatus },
}

/// Takes `jobs` in one fresh process of `launch`.
fn in_child(launch: &Launch, jobs: &[Job], watchdog: &Watchdog, taken: &mut Taker) -> anyhow::Result<Ended> {
    let exe = &launch.exe;
    let mut child = Command::new(exe)
        .arg(SUBCOMMAND)
        .envs(launch.env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {} to measure a round", exe.display()))?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let request = Request { protocol: PROTOCOL, timeout: watchdog.timeout, jobs: jobs.to_vec() };
    let written = child.stdin.take().map(|mut stdin| {
        serde_json::to_writer(&mut stdin, &request).map_err(std::io::Error::from).and_then(|()| stdin.flush())
    });
    let mut done = 0;
    let mut lines = child.stdout.take().into_iter().flat_map(|stdout| BufReader::new(stdout).lines());
    let read = lines.try_for_each(|line| {
        let line = line.context("cannot read the samples of the process measuring a round")?;
        let sample = serde_json::from_str::<Taken>(&line).context("a sample line that does not parse")?;
        taken(sample.at, sample.sample)?;
        done += 1;
        anyhow::Ok(())
    });
    if read.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().context("cannot wait for the process measuring a round")?;
    CHILD.store(0, Ordering::SeqCst);
    read?;
    if done == jobs.len() {
        return Ok(Ended::All);
    }
    if watchdog.is_interrupted() {
        return Ok(Ended::Interrupted);
    }
    if status.signal().is_some() {
        return Ok(Ended::Early { done, status });
    }
    if let Some(Err(error)) = written {
        return Err(error).context("cannot hand a round to the process that measures it");
    }
    anyhow::bail!("the process measuring a round ended with {status} after {done} of its {} samples", jobs.len())
}

/// Makes `signal` reach the child measuring now, if any, as SIGTERM: a stop sent to this
/// process alone (`timeout`, a CI runner) stops the round too. The child stops at its next
/// sample boundary, as this process does.
pub fn forward_stop(signal: libc::c_int) -> std::io::Result<()> {
    // SAFETY: the action only loads an atomic and calls kill(2), both async-signal-safe.
    unsafe {
        signal_hook::low_level::register(signal, || {
            let child = CHILD.load(Ordering::SeqCst);
            if child > 0 {
                libc::kill(child, libc::SIGTERM);
            }
        })
    }
    .map(|_| ())
}

/// The child's side: reads a round from stdin, resolves each job's channel with `resolve`,
/// takes the jobs in this process under a watchdog interrupted by `interrupted`, and writes
/// each sample to stdout as one JSON line as soon as it is measured.
pub fn serve(
    resolve: &dyn Fn(&str) -> Option<Prepare>,
    interrupted: std::sync::Arc<std::sync::atomic::AtomicBool>,
    wake_on: &[libc::c_int],
) -> anyhow::Result<()> {
    // A sweep killed outright (SIGKILL) cannot forward its stop: its death stops this round.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG only sets this process's own attribute.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM)
    };
    let request: Request =
        serde_json::from_reader(std::io::stdin().lock()).context("cannot read the round to measure from stdin")?;
    if request.protocol != PROTOCOL {
        anyhow::bail!(
            "this build takes rounds of take-round protocol {PROTOCOL}, and was handed one of protocol {}",
            request.protocol
        );
    }
    let jobs: Vec<Job> = request.jobs.into_iter().map(|job| Job { prepare: resolve(&job.channel), ..job }).collect();
    let watchdog =
        Watchdog::new(request.timeout, interrupted).context("cannot create the watchdog's wake-up socket")?;
    for &signal in wake_on {
        watchdog.wake_on(signal).context("cannot install a stop signal's handler")?;
    }
    let mut stdout = std::io::stdout().lock();
    take_here(&jobs, &watchdog, &mut |at, sample| {
        serde_json::to_writer(&mut stdout, &Taken { at, sample })?;
        stdout.write_all(b"\n")?;
        stdout.flush().context("cannot write a sample to the sweep")
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::measure::RuntimeKind;
    use crate::run::workload::{Mode, Workload};

    #[test]
    fn a_process_per_round_warms_up_every_sample_and_one_process_only_a_cells_first() {
        assert_eq!([Isolation::Process.warmups(true, 2), Isolation::Process.warmups(false, 2)], [2, 2]);
        assert_eq!([Isolation::InProcess.warmups(true, 2), Isolation::InProcess.warmups(false, 2)], [2, 0]);
    }

    #[test]
    fn a_round_and_its_samples_read_back_as_written() {
        let job = Job {
            channel: "kanal".to_owned(),
            prepare: None,
            runtime: RuntimeKind::CurrentThread,
            workers: 1,
            workload: Workload::new(Mode::MergedRecv, 4, 1000, 64),
            warmups: 1,
            bound: None,
            slowed: 0.0,
        };
        let request = Request { protocol: PROTOCOL, timeout: Duration::from_secs(3), jobs: vec![job] };
        let back: Request = serde_json::from_str(&serde_json::to_string(&request).unwrap()).unwrap();
        assert_eq!(back.timeout, request.timeout);
        assert_eq!(back.jobs[0].workload, request.jobs[0].workload);
        assert_eq!((back.jobs[0].channel.as_str(), back.jobs[0].warmups), ("kanal", 1));

        let sample = Sample { dropped: 3, ..Sample::failed(Duration::from_millis(7), Duration::ZERO, Status::Ok) };
        let line = serde_json::to_string(&Taken { at: 2, sample: sample.clone() }).unwrap();
        assert!(!line.contains('\n'), "one line per sample: {line}");
        let back: Taken = serde_json::from_str(&line).unwrap();
        assert_eq!((back.at, back.sample), (2, sample));
    }
}
