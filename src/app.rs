//! The commands: a sweep, `compare`, `summary` and `--list-channels`, each from its parsed
//! arguments to its exit code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use anyhow::Context;
use signal_hook::consts::SIGINT;

use crate::cli::{CellsArgs, CompareArgs, ExportArgs, SummaryArgs};
use crate::error::{UsageError, usage};
use crate::output::{self, console::Console, console::print_line, csv::CsvWriter, export, machine};
use crate::plan::Plan;
use crate::registry;
use crate::results::load::{self, ResultsFile};
use crate::results::metadata::Metadata;
use crate::results::{cells, compare, recommend};
use crate::run::measure::Watchdog;
use crate::sweep as sweeping;

/// Runs a sweep of `plan` and writes `exports` at its end; exit code 0, 1 when a cell
/// failed, 130 when interrupted.
pub fn sweep(plan: Plan, exports: &ExportArgs) -> anyhow::Result<ExitCode> {
    // Refused before the sweep, not after its hours of work.
    export::check_free(exports, plan.force)?;
    let started = SystemTime::now();
    let out = plan.out.clone().unwrap_or_else(|| default_out(started));
    let mut csv = CsvWriter::create(&out, plan.force).map_err(|error| UsageError(format!("{error:#}")))?;
    let command_line = std::env::args().collect();
    let started_utc = humantime::format_rfc3339_seconds(started).to_string();
    machine::describe(&plan.channels, command_line, started_utc).write(&out.with_extension("json"))?;
    let watchdog = Watchdog { timeout: plan.timeout, interrupted: interrupt_flag()? };

    let cells = plan.cells().len();
    let console = Console::new(cells as u64);
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
                .and_then(|()| write_cells(csv.path(), &samples, exports, plan.force))
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

/// Writes the per-cell results of a sweep's CSV beside it, as `X.cells.json`, and `exports`.
fn write_cells(csv: &Path, samples: &ResultsFile, exports: &ExportArgs, force: bool) -> anyhow::Result<()> {
    let cells = cells::cells(&csv.display().to_string(), samples);
    let path = cells_path(csv);
    // Beside the CSV the sweep has just written, as the .md and .json are.
    export::write_file(&path, &export::json(&cells), true, "--out")?;
    export::write_all(exports, &cells, force)?;
    print_line(&format!("cells: {}", path.display()));
    Ok(())
}

/// `x.csv` → `x.cells.json`, beside it.
fn cells_path(csv: &Path) -> PathBuf {
    csv.with_extension("cells.json")
}

/// `channel-bench cells`.
pub fn cells(args: &CellsArgs) -> anyhow::Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| cells_path(&args.csv));
    if out == args.csv {
        return Err(usage(format!("{} would overwrite the CSV itself: give --out another path", out.display())));
    }
    let samples = read(&args.csv)?;
    let cells = cells::cells(&args.csv.display().to_string(), &samples);
    export::write_file(&out, &export::json(&cells), args.force, "--out")?;
    export::write_all(&args.export, &cells, args.force)?;
    if out != Path::new("-") {
        print_line(&format!("cells: {}", out.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The machine description beside `csv` (`x.json`), when there is a readable one.
fn metadata(csv: &Path) -> Option<Metadata> {
    let path = csv.with_extension("json");
    let text = std::fs::read_to_string(&path).ok()?;
    serde_json::from_str(&text)
        .inspect_err(|error| {
            eprintln!("warning: {}: ignored, not a channel-bench machine description: {error}", path.display())
        })
        .ok()
}

/// `channel-bench compare`: exit code 0, or 1 under `--fail-on-slower` when a cell is slower.
pub fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let (mut old, mut new) = (read(&args.old)?, read(&args.new)?);
    let (old_name, new_name) = (args.old.display().to_string(), args.new.display().to_string());
    let different = output::compare::workload_difference(&old_name, &old.workloads(), &new_name, &new.workloads());
    if let Some(line) = &different
        && !args.allow_different
    {
        return Err(usage(format!("{line}: compare runs of the same workload, or pass --allow-different")));
    }
    let (old_workloads, new_workloads) = (old.workloads(), new.workloads());
    if old_workloads != new_workloads {
        // Equal where both files know them (or --allow-different): pair by the rest of the key.
        let strip = |file: &ResultsFile, name: &str| {
            file.without_workload().ok_or_else(|| {
                usage(format!(
                    "{name} holds cells that differ only by workload: compare it against a file of one workload"
                ))
            })
        };
        (old, new) = (strip(&old, &old_name)?, strip(&new, &new_name)?);
    }
    let mut notes = output::compare::machine_differences(
        &old_name,
        metadata(&args.old).as_ref(),
        &new_name,
        metadata(&args.new).as_ref(),
    );
    if let Some(line) = different {
        notes.insert(0, format!("workloads differ, cells paired without them (--allow-different): {line}"));
    }
    for note in notes {
        print_line(&format!("note: {note}"));
    }
    let report = output::compare::report(&old_name, &old, &new_name, &new, args.threshold / 100.0);
    print_line(report.text.trim_end());
    Ok(if args.fail_on_slower && report.slower > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
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
