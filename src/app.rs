//! The commands: a sweep, `compare`, `summary`, `cells`, `report` and `--list-channels`, each
//! from its parsed arguments to its exit code; and [`main_with`], the whole binary, for a
//! program that measures channels of its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

use anyhow::Context;
use clap::Parser;
use clap::error::ErrorKind;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::cli::{CellsArgs, Cli, Command, CompareArgs, ExportArgs, ReportArgs, SummaryArgs};
use crate::error::{UsageError, usage};
use crate::output::files::{self, OutputSet};
use crate::output::{self, console::Console, console::print_line, csv::CsvWriter, export, machine};
use crate::plan::Plan;
use crate::registry::{self, ChannelEntry};
use crate::results::load::{self, ResultsFile};
use crate::results::metadata::Metadata;
use crate::results::{cells, compare, recommend};
use crate::run::measure::Watchdog;
use crate::sweep as sweeping;

/// The channel-bench binary with `extra` channels besides the built-in ones: the same command
/// line (read from the process's arguments), CSV, summary and checks; `--channels` and
/// `--list-channels` know the extra channels, and a sweep without `--channels` runs them
/// after the built-in ones. Prints `error: …` and returns 2 for bad usage, 1 for any other
/// error. The binary's own `main` is `main_with(&[])`; see `examples/custom_channel.rs`.
pub fn main_with(extra: &'static [ChannelEntry]) -> ExitCode {
    main_with_args(extra, std::env::args_os())
}

/// [`main_with`], with the command line given (`args` starts with the program's name).
pub fn main_with_args(
    extra: &'static [ChannelEntry],
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> ExitCode {
    match run(extra, args.into_iter().map(Into::into).collect()) {
        Ok(code) => code,
        Err(error) => {
            // Not eprintln!: a failing stderr must not turn the exit code into a panic's.
            let _ = writeln!(std::io::stderr().lock(), "error: {error:#}");
            ExitCode::from(if error.is::<UsageError>() { 2 } else { 1 })
        }
    }
}

fn run(extra: &'static [ChannelEntry], args: Vec<std::ffi::OsString>) -> anyhow::Result<ExitCode> {
    if let Some(taken) =
        extra.iter().find(|entry| registry::known().chain(extra).filter(|e| e.name == entry.name).count() > 1)
    {
        return Err(UsageError(format!(
            "two channels are named {:?}: give each channel a name of its own",
            taken.name
        ))
        .into());
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            error.print()?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => return Err(UsageError(first_paragraph(&error.render().to_string())).into()),
    };
    match cli.command {
        Some(Command::Compare(args)) => compare(&args),
        Some(Command::Summary(args)) => summarize(&args),
        Some(Command::Cells(args)) => cells(&args),
        Some(Command::Report(args)) => report(&args),
        None if cli.sweep.list_channels => {
            list_channels(extra);
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let command_line = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
            let exports = cli.sweep.export.clone();
            sweep(Plan::with_extra(cli.sweep, extra)?, command_line, &exports)
        }
    }
}

/// clap's message up to its first blank line, on one line, without its `error: ` prefix.
fn first_paragraph(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().map(str::trim).take_while(|line| !line.is_empty()).collect();
    lines.join(" ").trim_start_matches("error: ").to_owned()
}

/// Runs a sweep of `plan` (started by `command_line`, which goes into the JSON beside the
/// CSV) and writes `exports` at its end; exit code 0, 1 when a cell failed, 128 + the signal
/// (130 SIGINT, 143 SIGTERM, 129 SIGHUP) when a signal stopped it.
pub fn sweep(plan: Plan, command_line: Vec<String>, exports: &ExportArgs) -> anyhow::Result<ExitCode> {
    // Refused before the sweep, not after its hours of work.
    export::check_free(exports, plan.force)?;
    let started = SystemTime::now();
    let set = OutputSet::new(&plan.out.clone().unwrap_or_else(|| default_out(started)));
    set.check(plan.force)?;
    let mut csv = CsvWriter::create(set.csv(), plan.force)?;
    let started_utc = humantime::format_rfc3339_seconds(started).to_string();
    machine::describe(&plan.channels, command_line, started_utc).write(&set.json())?;
    let stop = StopSignals::install()?;
    let watchdog =
        Watchdog::new(plan.timeout, stop.flag.clone()).context("cannot create the watchdog's wake-up socket")?;
    for signal in STOP_SIGNALS {
        watchdog.wake_on(signal).with_context(|| format!("cannot install the handler of {}", signal_name(signal)))?;
    }

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
            print_summary(csv.path(), &samples, compare::DEFAULT_THRESHOLD, Markdown::File(&set.markdown(), plan.force))
                .and_then(|()| write_cells(&set, &samples, exports, plan.force))
                .and_then(|()| write_report(&set, &samples, compare::DEFAULT_THRESHOLD, plan.force))
        }
        Err(error) => {
            print_error(&format!("no summary: {error:#}"));
            Ok(())
        }
    };
    if outcome.interrupted {
        let signal = stop.signal();
        print_error(&format!(
            "interrupted by {}: {} of {} cells finished, {} samples written to {}",
            signal_name(signal),
            outcome.cells_done,
            cells,
            outcome.samples,
            csv.path().display()
        ));
        // The signal's exit code wins over a summary that could not be written.
        if let Err(error) = summarized {
            print_error(&format!("error: {error:#}"));
        }
        return Ok(ExitCode::from(128 + signal as u8));
    }
    summarized?;
    Ok(if outcome.failed_cells.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The signals that stop a sweep at the next sample boundary, keeping what it measured:
/// Ctrl-C, and what `timeout`, CI runners, systemd and container runtimes send, and a closed
/// terminal.
const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first stop signal sets `flag`, so the sweep stops after writing what it has, and is
/// remembered for the exit code; a second one ends the process at once (128 + its number).
struct StopSignals {
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

/// A line on stderr. A closed or failing stderr (a hung-up terminal) is ignored: the exit
/// code still says what happened.
fn print_error(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "SIGINT",
    }
}

/// Loads a CSV given on the command line: a bad file is a usage error (exit 2); a partial
/// last line is skipped with a warning.
fn read(path: &Path) -> anyhow::Result<ResultsFile> {
    let samples = load::load(path).map_err(|error| UsageError(format!("{error:#}")))?;
    if samples.skipped_partial_line {
        print_error(&format!("warning: {}: skipped a partial last line (a run stopped mid-write)", path.display()));
    }
    Ok(samples)
}

/// Writes the per-cell results of a sweep's CSV beside it, as `X.cells.json`, and `exports`.
fn write_cells(set: &OutputSet, samples: &ResultsFile, exports: &ExportArgs, force: bool) -> anyhow::Result<()> {
    let cells = cells::cells(&set.csv().display().to_string(), samples);
    let path = set.cells_json();
    // A member of the sweep's output set, checked before the sweep started.
    files::write(&path, export::json(&cells).as_bytes(), force, "the per-cell results")?;
    export::write_all(exports, &cells, force)?;
    print_line(&format!("cells: {}", path.display()));
    Ok(())
}

/// `channel-bench cells`.
pub fn cells(args: &CellsArgs) -> anyhow::Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| OutputSet::new(&args.csv).cells_json());
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

/// `channel-bench summary`: the text on stdout, the Markdown beside the CSV (or `--out`), never
/// replacing a file without `--force`.
pub fn summarize(args: &SummaryArgs) -> anyhow::Result<ExitCode> {
    if args.short {
        let samples = read(&args.csv)?;
        let bands = recommend::recommend(&samples, args.threshold / 100.0);
        print!("{}", output::summary::short_markdown(&file_name(&args.csv), &bands));
        return Ok(ExitCode::SUCCESS);
    }
    if markdown_path(&args.csv) == args.csv {
        return Err(UsageError(format!(
            "{} ends in .md: the summary would overwrite it; give the CSV a .csv name",
            args.csv.display()
        ))
        .into());
    }
    // None: stdout.
    let target = match &args.out {
        Some(out) if out.as_os_str() == "-" => None,
        Some(out) => Some(out.clone()),
        None => Some(markdown_path(&args.csv)),
    };
    if let Some(path) = &target {
        if *path == args.csv {
            return Err(usage(format!("--out {} is the CSV itself: give another path", path.display())));
        }
        files::check_target(path, args.force, "the summary")?;
    }
    let samples = read(&args.csv)?;
    let markdown = target.as_deref().map_or(Markdown::Stdout, |path| Markdown::File(path, args.force));
    print_summary(&args.csv, &samples, args.threshold / 100.0, markdown)?;
    Ok(ExitCode::SUCCESS)
}

/// Where the summary's Markdown goes.
#[derive(Clone, Copy)]
enum Markdown<'a> {
    /// To this file, already checked; replaced only with `--force` (the bool).
    File(&'a Path, bool),
    /// To stdout, instead of the text.
    Stdout,
}

/// Prints the summary of `samples` (read from `csv`) and writes it as Markdown to `markdown`.
fn print_summary(csv: &Path, samples: &ResultsFile, threshold: f64, markdown: Markdown) -> anyhow::Result<()> {
    let bands = recommend::recommend(samples, threshold);
    let name = file_name(csv);
    let text = output::summary::markdown(&name, &bands, threshold);
    match markdown {
        Markdown::Stdout => print_line(text.trim_end()),
        Markdown::File(path, force) => {
            print_line(output::summary::text(&bands).trim_end());
            files::write(path, text.as_bytes(), force, "the summary")?;
            print_line(&format!("summary: {}", path.display()));
        }
    }
    Ok(())
}

/// `channel-bench report`: `X.html` beside `X.csv`, replaced only with `--force`.
pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let set = OutputSet::new(&args.csv);
    if set.html() == args.csv {
        return Err(usage(format!(
            "{} ends in .html: the report would overwrite it; give the CSV a .csv name",
            args.csv.display()
        )));
    }
    files::check_target(&set.html(), args.force, "the report")?;
    let samples = read(&args.csv)?;
    write_report(&set, &samples, args.threshold / 100.0, args.force)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the HTML report of `samples` (read from `set.csv()`) as `set.html()`, with the
/// machine from the JSON beside the CSV when there is one.
fn write_report(set: &OutputSet, samples: &ResultsFile, threshold: f64, force: bool) -> anyhow::Result<()> {
    let json = set.json();
    // The machine is the report's last section, not a reason to have none.
    let metadata = json.exists().then(|| Metadata::read(&json)).transpose().unwrap_or_else(|error| {
        print_error(&format!("warning: {error:#}; the report leaves the machine out"));
        None
    });
    let bands = recommend::recommend(samples, threshold);
    let name = file_name(set.csv());
    let cells = cells::cells(&set.csv().display().to_string(), samples);
    let report = output::html::Report { csv_name: &name, cells: &cells, bands: &bands, metadata: metadata.as_ref() };
    let html = set.html();
    files::write(&html, output::html::page(&report).as_bytes(), force, "the report")?;
    print_line(&format!("report: {}", html.display()));
    Ok(())
}

/// The file name of `path`, or the whole path when it has none.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned())
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

/// `channel-bench --list-channels`: the built-in channels, then `extra`, each channel's caveats
/// under it.
pub fn list_channels(extra: &'static [ChannelEntry]) {
    print_line(&format!("{:<16} {:<16} {:<10} capacity", "channel", "crate", "version"));
    for channel in registry::known().chain(extra) {
        let capacity = match channel.slots_per_sender {
            0 => "exact".to_owned(),
            slots => format!("exact (the crate adds {slots} slot per sender; the adapter asks for capacity - senders)"),
        };
        let version = machine::locked_version(channel.crate_name);
        print_line(&format!("{:<16} {:<16} {:<10} {capacity}", channel.name, channel.crate_name, version));
        for caveat in channel.caveats {
            let mark = output::summary::MARK;
            print_line(&format!("{:<16} {mark} {} ({}): {}", "", caveat.text, caveat.versions, caveat.link));
        }
    }
    print_line(&format!(
        "{} known problems, from the crates' issue trackers searched {}",
        output::summary::MARK,
        registry::CAVEATS_CHECKED
    ));
}
