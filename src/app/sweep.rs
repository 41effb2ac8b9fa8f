//! A sweep from its plan to its exit code: the output set checked, the stop signals
//! installed, the cells measured, then the summary, the per-cell results and the report
//! written from the CSV.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Instant, SystemTime};

use anyhow::Context;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use super::commands::{Reread, Target, Written, metadata};
use super::print_error;
use crate::cli::ExportArgs;
use crate::output::files::OutputSet;
use crate::output::{self, console::Console, console::print_line, csv::CsvWriter, export, machine};
use crate::plan::{Plan, estimate};
use crate::registry::{self, ChannelEntry};
use crate::results::analysis::Analysis;
use crate::results::host;
use crate::results::load::{self, ResultsFile};
use crate::run::measure::Watchdog;
use crate::run::rounds;
use crate::sweep as sweeping;

/// Runs a sweep of `plan` (started by `command_line`, which goes into the JSON beside the
/// CSV) and writes `exports` at its end; exit code 0, 1 when a cell failed, 128 + the signal
/// (130 SIGINT, 143 SIGTERM, 129 SIGHUP) when a signal stopped it.
pub fn sweep(plan: Plan, command_line: Vec<String>, exports: &ExportArgs) -> anyhow::Result<ExitCode> {
    // Refused before the sweep, not after its hours of work.
    export::check_free(exports, plan.force)?;
    #[cfg(feature = "faults")]
    for (channel, asked) in crate::run::slow::requested().map_err(crate::error::usage)? {
        if !plan.channels.iter().any(|entry| entry.name == channel) {
            return Err(crate::error::usage(format!(
                "{}: the sweep measures no channel named {channel:?}; give CHANNEL:PCT% with one of --channels (--list-channels)",
                crate::run::slow::VARIABLE
            )));
        }
        print_error(&format!("faults build: {channel} slowed by {asked}"));
    }
    if let Some(stretch) = crate::run::slow::Stretch::requested().map_err(crate::error::usage)? {
        let (first, last, percent) = (stretch.first, stretch.last, stretch.fraction * 100.0);
        print_error(&format!("faults build: the whole machine slowed by {percent}% in rounds {first} to {last}"));
    }
    let measured = measure(&plan, command_line, Vec::new(), &mut sweeping::Alone)?;
    let (set, csv) = (&measured.set, measured.set.csv());
    // From the rows written, as `channel-bench summary` reads them from the file: an interrupted
    // sweep is summarized too, and a channel the sweep never reached in a band is listed there
    // as not measured. Only a sweep without a single sample has none. The memory sidecar beside
    // the CSV, when one is there, gives the cells of its shapes their memory figures.
    let rows = &measured.outcome.rows;
    let memory = || {
        crate::results::memory::read_sidecar(csv).unwrap_or_else(|error| {
            print_error(&format!("warning: {error:#}; the memory figures are left out"));
            Vec::new()
        })
    };
    let summarized = match (!rows.is_empty()).then(|| ResultsFile { memory: memory(), ..load::of_rows(rows) }) {
        Some(samples) => {
            print_line("");
            let metadata = metadata(csv);
            let analysis = Analysis::of(&csv.display().to_string(), &samples, metadata.as_ref());
            let max_time = plan.max_time.as_secs_f64();
            let duels = output::open::max_time_line(&analysis.open, max_time, plan.duel_cells(), measured.cells);
            duels.inspect(|line| print_line(&format!("{line}\n")));
            let name = super::file_name(csv);
            let read = Reread { pooled: name.clone(), name, machines: metadata.into_iter().collect(), analysis };
            let write = |written: Written| {
                written.write(Target::File(written.beside(set), plan.force), &read, exports, plan.force)
            };
            let summary = write(Written::Summary);
            plan.unread_payload().inspect(|line| print_line(&format!("note: {line}")));
            summary.and_then(|()| write(Written::Cells)).and_then(|()| write(Written::Report))
        }
        None => {
            print_error(&format!("no summary: {} has a header but no samples", csv.display()));
            Ok(())
        }
    };
    measured.exit_code(summarized, |()| None)
}

/// What [`measure`] leaves: the output set, what the rounds found, the stop signals and the
/// number of cells planned.
pub(super) struct Measured {
    pub set: OutputSet,
    pub outcome: sweeping::Outcome,
    pub stop: StopSignals,
    pub cells: usize,
}

/// Checks the output set, writes the CSV and the JSON (its `builds` those given), installs
/// the stop signals and measures `plan`'s rounds where `place` says.
pub(super) fn measure(
    plan: &Plan,
    command_line: Vec<String>,
    builds: Vec<crate::results::metadata::Build>,
    place: &mut dyn sweeping::Place,
) -> anyhow::Result<Measured> {
    let started = SystemTime::now();
    let set = OutputSet::new(&plan.out.clone().unwrap_or_else(|| results_csv("channel-bench", started)));
    set.check(plan.force)?;
    let mut csv = CsvWriter::create(set.csv(), plan.force)?;
    let started_utc = humantime::format_rfc3339_seconds(started).to_string();
    let metadata = machine::describe(&plan.channels, command_line, started_utc);
    let keep = plan.keep.iter().map(|channel| channel.to_string()).collect();
    let weigh = plan.weigh.clone();
    crate::results::metadata::Metadata { builds, keep, weigh, ..metadata }.write(&set.json())?;
    let stop = StopSignals::install()?;
    let watchdog =
        Watchdog::new(plan.timeout, stop.flag.clone()).context("cannot create the watchdog's wake-up socket")?;
    for signal in STOP_SIGNALS {
        watchdog
            .wake_on(signal)
            .and_then(|()| rounds::forward_stop(signal))
            .with_context(|| format!("cannot install the handler of {}", signal_name(signal)))?;
    }
    let cells = plan.cells().len();
    for line in output::open::notes(plan) {
        print_line(&format!("note: {line}"));
    }
    let expected = estimate::wall_time(plan).total();
    let console = Console::new(
        (cells * plan.samples * plan.builds) as u64,
        plan.builds as u64,
        &estimate::seconds_text(expected),
    );
    console.header(&plan.workloads(plan.tasks[0])[0], &plan.capacities, plan.task_capacities.as_deref(), &plan.records);
    let rounds = Instant::now();
    let outcome = sweeping::run(plan, &watchdog, &console, &mut csv, place)?;
    console.finish(csv.path(), &outcome.refused_cells, &outcome.failed_cells);
    if !outcome.interrupted {
        let left_out = host::left_out_share(&load::of_rows(&outcome.rows));
        let host = (left_out, left_out >= host::NOISY_SHARE);
        estimate::off_line(expected, rounds.elapsed(), host).inspect(|line| print_line(line));
    }
    Ok(Measured { set, outcome, stop, cells })
}

impl Measured {
    /// The exit code once the rounds are over and `written` says how writing their results went:
    /// when a stop signal ended the rounds, says so (with what could not be written after them)
    /// and gives the signal's; else `code` of what was written, or 1 when a cell failed, or 0.
    pub(super) fn exit_code<T>(
        &self,
        written: anyhow::Result<T>,
        code: impl FnOnce(T) -> Option<ExitCode>,
    ) -> anyhow::Result<ExitCode> {
        if self.outcome.interrupted {
            let signal = self.stop.signal();
            print_error(&format!(
                "interrupted by {}: {} of {} cells finished, {} samples written to {}",
                signal_name(signal),
                self.outcome.cells_done,
                self.cells,
                self.outcome.rows.len(),
                self.set.csv().display()
            ));
            // The signal's exit code wins over a summary that could not be written.
            if let Err(error) = written {
                print_error(&format!("error: {error:#}"));
            }
            return Ok(ExitCode::from(128 + signal as u8));
        }
        let failed = if self.outcome.failed_cells.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
        Ok(code(written?).unwrap_or(failed))
    }
}

/// The child process of a sweep's round (`run::rounds`): takes the round on stdin with the
/// built-in and `extra` channels; a stop signal ends it at the next sample boundary.
pub fn take_round(extra: &'static [ChannelEntry]) -> anyhow::Result<ExitCode> {
    let interrupted = Arc::new(AtomicBool::new(false));
    for signal in STOP_SIGNALS {
        signal_hook::flag::register(signal, interrupted.clone())
            .with_context(|| format!("cannot install the handler of {}", signal_name(signal)))?;
    }
    let resolve =
        |name: &str| registry::known().chain(extra).find(|entry| entry.name == name).map(|entry| entry.prepare);
    rounds::serve(&resolve, interrupted, &STOP_SIGNALS)?;
    Ok(ExitCode::SUCCESS)
}

/// The signals that stop a sweep at the next sample boundary, keeping what it measured:
/// Ctrl-C, and what `timeout`, CI runners, systemd and container runtimes send, and a closed
/// terminal.
const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first stop signal sets `flag`, so the sweep stops after writing what it has, and is
/// remembered for the exit code; a second one ends the process at once (128 + its number).
pub(super) struct StopSignals {
    flag: Arc<AtomicBool>,
    first: Arc<AtomicUsize>,
}

impl StopSignals {
    fn install() -> anyhow::Result<Self> {
        let (flag, first) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
        for signal in STOP_SIGNALS {
            // The shutdown must be registered first: it only acts once the flag is already set.
            signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, flag.clone())
                .and_then(|_| signal_hook::flag::register_usize(signal, first.clone(), signal as usize))
                .and_then(|_| signal_hook::flag::register(signal, flag.clone()))
                .with_context(|| format!("cannot install the handler of {}", signal_name(signal)))?;
        }
        Ok(Self { flag, first })
    }

    /// The signal that stopped the sweep (SIGINT if none was recorded).
    fn signal(&self) -> i32 {
        match self.first.load(Ordering::SeqCst) {
            0 => SIGINT,
            signal => signal as i32,
        }
    }
}

/// `SIGTERM`, as signal-hook names the signal (each of [`STOP_SIGNALS`] has its name).
fn signal_name(signal: i32) -> &'static str {
    signal_hook::low_level::signal_name(signal).unwrap_or("SIGINT")
}

/// `results/<name>-<UTC timestamp>.csv`, the timestamp like `20261121T213353Z`.
pub(super) fn results_csv(name: &str, started: SystemTime) -> PathBuf {
    let stamp: String =
        humantime::format_rfc3339_seconds(started).to_string().chars().filter(|c| !matches!(c, '-' | ':')).collect();
    PathBuf::from("results").join(format!("{name}-{stamp}.csv"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stop_signal_is_said_by_its_name() {
        assert_eq!(STOP_SIGNALS.map(signal_name), ["SIGINT", "SIGTERM", "SIGHUP"]);
    }
}
