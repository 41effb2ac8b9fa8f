//! The commands: a sweep, `compare`, `summary` and `--list-channels`, each from its parsed
//! arguments to its exit code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use anyhow::Context;
use signal_hook::consts::SIGINT;

use crate::cli::{CompareArgs, SummaryArgs};
use crate::error::UsageError;
use crate::output::{self, console::Console, console::print_line, csv::CsvWriter, machine};
use crate::plan::Plan;
use crate::registry;
use crate::results::load::{self, ResultsFile};
use crate::results::{compare, recommend};
use crate::run::measure::Watchdog;
use crate::sweep as sweeping;

/// Runs a sweep of `plan`; exit code 0, 1 when a cell failed, 130 when interrupted.
pub fn sweep(plan: Plan) -> anyhow::Result<ExitCode> {
    let started = SystemTime::now();
    let out = plan.out.clone().unwrap_or_else(|| default_out(started));
    let mut csv = CsvWriter::create(&out, plan.force).map_err(|error| UsageError(format!("{error:#}")))?;
    let command_line = std::env::args().collect();
    let started_utc = humantime::format_rfc3339_seconds(started).to_string();
    machine::describe(&plan.channels, command_line, started_utc).write(&out.with_extension("json"))?;
    let watchdog =
        Watchdog::new(plan.timeout, interrupt_flag()?).context("cannot create the watchdog's wake-up socket")?;
    watchdog.wake_on(SIGINT).context("cannot install the Ctrl-C handler")?;

    let cells = plan.cells().len();
    let console = Console::new((cells * plan.samples) as u64);
    console.header(&plan.workload(plan.modes[0], plan.tasks[0], plan.merges[0]));
    let outcome = sweeping::run(&plan, &watchdog, &console, &mut csv)?;
    console.finish(csv.path(), &outcome.noisy_cells, &outcome.failed_cells);
    // From the file, as `channel-bench summary` would: an interrupted sweep is summarized too,
    // its unfinished cells are in the CSV, and a channel the sweep never reached in a band is
    // listed there as not measured. Only a CSV without a single sample has none.
    let summarized = match load::load(csv.path()) {
        Ok(samples) => {
            print_line("");
            print_summary(csv.path(), &samples, compare::DEFAULT_THRESHOLD)
        }
        Err(error) => {
            eprintln!("no summary: {error:#}");
            Ok(())
        }
    };
    if outcome.interrupted {
        eprintln!(
            "interrupted: {} of {} cells finished, {} samples written to {}",
            outcome.cells_done,
            cells,
            outcome.samples,
            csv.path().display()
        );
        // Ctrl-C's exit code wins over a summary that could not be written.
        if let Err(error) = summarized {
            eprintln!("error: {error:#}");
        }
        return Ok(ExitCode::from(130));
    }
    summarized?;
    Ok(if outcome.failed_cells.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// A flag that the first SIGINT sets, so the sweep stops after writing what it has;
/// a second SIGINT ends the process at once.
fn interrupt_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    // The shutdown must be registered first: it only acts once the flag is already set.
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, flag.clone())
        .and_then(|_| signal_hook::flag::register(SIGINT, flag.clone()))
        .context("cannot install the Ctrl-C handler")?;
    Ok(flag)
}

/// Loads a CSV given on the command line: a bad file is a usage error (exit 2); a partial
/// last line is skipped with a warning.
fn read(path: &Path) -> anyhow::Result<ResultsFile> {
    let samples = load::load(path).map_err(|error| UsageError(format!("{error:#}")))?;
    if samples.skipped_partial_line {
        eprintln!("warning: {}: skipped a partial last line (a run stopped mid-write)", path.display());
    }
    Ok(samples)
}

/// `channel-bench compare`.
pub fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let (old_name, new_name) = (args.old.display().to_string(), args.new.display().to_string());
    print_line(output::compare::report(&old_name, &old, &new_name, &new, args.threshold / 100.0).trim_end());
    Ok(ExitCode::SUCCESS)
}

/// `channel-bench summary`.
pub fn summarize(args: &SummaryArgs) -> anyhow::Result<ExitCode> {
    if markdown_path(&args.csv) == args.csv {
        return Err(UsageError(format!(
            "{} ends in .md: the summary would overwrite it; give the CSV a .csv name",
            args.csv.display()
        ))
        .into());
    }
    let samples = read(&args.csv)?;
    print_summary(&args.csv, &samples, args.threshold / 100.0)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the summary of `samples` (read from `csv`) and writes it as Markdown beside `csv`.
fn print_summary(csv: &Path, samples: &ResultsFile, threshold: f64) -> anyhow::Result<()> {
    let bands = recommend::recommend(samples, threshold);
    print_line(output::summary::text(&bands).trim_end());
    let name = csv.file_name().map_or_else(|| csv.display().to_string(), |name| name.to_string_lossy().into_owned());
    let markdown = markdown_path(csv);
    std::fs::write(&markdown, output::summary::markdown(&name, &bands, threshold))
        .with_context(|| format!("cannot write the summary {}", markdown.display()))?;
    print_line(&format!("summary: {}", markdown.display()));
    Ok(())
}

/// `x.csv` → `x.md`, beside it.
fn markdown_path(csv: &Path) -> PathBuf {
    csv.with_extension("md")
}

/// `results/channel-bench-<UTC timestamp>.csv`, the timestamp like `20261121T213353Z`.
fn default_out(started: SystemTime) -> PathBuf {
    let stamp: String =
        humantime::format_rfc3339_seconds(started).to_string().chars().filter(|c| !matches!(c, '-' | ':')).collect();
    PathBuf::from("results").join(format!("channel-bench-{stamp}.csv"))
}

/// `channel-bench --list-channels`.
pub fn list_channels() {
    print_line(&format!("{:<16} {:<16} {:<10} capacity", "channel", "crate", "version"));
    for channel in registry::known() {
        let capacity = match channel.slots_per_sender {
            0 => "exact".to_owned(),
            slots => format!("exact (buffer = capacity - {slots} per sender)"),
        };
        let version = machine::locked_version(channel.crate_name);
        print_line(&format!("{:<16} {:<16} {:<10} {capacity}", channel.name, channel.crate_name, version));
    }
}
