//! The binary as a library: [`main_with`] parses the command line, dispatches to a command and
//! owns the one error path (exit 2 for usage, 1 for everything else). The commands are a
//! `sweep` and the ones that read its files (`commands`): `compare`, `summary`, `cells`,
//! `report`, `--list-channels`; and `memory`, what each channel keeps.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::cli::{Cli, Command};
use crate::error::{UsageError, usage};
use crate::plan::Plan;
use crate::registry::{self, ChannelEntry};
use crate::results::load::{self, ResultsFile};
use crate::run::rounds::Isolation;

mod ab;
mod commands;
mod dry_run;
mod memory;
mod sfu;
mod sweep;

use commands::{cells, compare, list_channels, report, summarize};
use sweep::sweep;

/// The channel-bench binary with `extra` channels besides the built-in ones: the same command
/// line (read from the process's arguments), CSV, summary and checks; `--channels` and
/// `--list-channels` know the extra channels, and a sweep without `--channels` runs them
/// after the built-in ones. A sweep measures each round in a fresh process of this binary,
/// which this function serves too. Prints `error: …` and returns 2 for bad usage, 1 for any
/// other error. The binary's own `main` is `main_with(&[])`; see `examples/custom_channel.rs`.
pub fn main_with(extra: &'static [ChannelEntry]) -> ExitCode {
    main_of(extra, std::env::args_os().collect(), Isolation::Process)
}

/// [`main_with`], with the command line given (`args` starts with the program's name), every
/// round of a sweep measured in this process: for a harness, such as a test, whose executable
/// is no channel-bench binary.
pub fn main_with_args(
    extra: &'static [ChannelEntry],
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> ExitCode {
    main_of(extra, args.into_iter().map(Into::into).collect(), Isolation::InProcess)
}

/// The one error path of both.
fn main_of(extra: &'static [ChannelEntry], args: Vec<std::ffi::OsString>, isolation: Isolation) -> ExitCode {
    match run(extra, args, isolation) {
        Ok(code) => code,
        Err(error) => {
            // Not eprintln!: a failing stderr must not turn the exit code into a panic's.
            let _ = writeln!(std::io::stderr().lock(), "error: {error:#}");
            ExitCode::from(if error.is::<UsageError>() { 2 } else { 1 })
        }
    }
}

fn run(
    extra: &'static [ChannelEntry],
    args: Vec<std::ffi::OsString>,
    isolation: Isolation,
) -> anyhow::Result<ExitCode> {
    if let Some(taken) =
        extra.iter().find(|entry| registry::known().chain(extra).filter(|e| e.name == entry.name).count() > 1)
    {
        return Err(usage(format!("two channels are named {:?}: give each channel a name of its own", taken.name)));
    }
    // Before any channel is made, in this process and in each round's (the same binary).
    registry::set_up(registry::known().chain(extra));
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            error.print()?;
            return Ok(ExitCode::SUCCESS);
        }
        // `compare` of a shell glob: more than its two sides.
        Err(error)
            if error.kind() == ErrorKind::UnknownArgument
                && args.iter().skip(1).filter_map(|arg| arg.to_str()).find(|arg| !arg.starts_with('-'))
                    == Some("compare") =>
        {
            let extra = error
                .get(clap::error::ContextKind::InvalidArg)
                .map_or(String::new(), |arg| format!(" ({arg} is a third)"));
            return Err(usage(format!(
                "compare takes two sides, OLD and NEW{extra}: give the runs of a side separated by commas, \
                 such as compare a1.csv,a2.csv b1.csv,b2.csv"
            )));
        }
        Err(error) => return Err(usage(first_paragraph(&error.render().to_string()))),
    };
    let command_line = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
    match cli.command {
        Some(Command::Compare(args)) => compare(&args),
        Some(Command::Summary(args)) => summarize(&args),
        Some(Command::Cells(args)) => cells(&args),
        Some(Command::Report(args)) => report(&args),
        Some(Command::Sfu(args)) => sfu::run(extra, &args, isolation),
        Some(Command::TakeRound(args)) if args.protocol => ab::protocol(extra),
        Some(Command::TakeRound(_)) => sweep::take_round(extra),
        Some(Command::Ab(args)) => ab::run(extra, *args, command_line, isolation),
        Some(Command::Memory(args)) => memory::run(extra, &args, &command_line),
        None if cli.sweep.list_channels => {
            list_channels(extra);
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let (exports, dry) = (cli.sweep.export.clone(), cli.sweep.dry_run);
            let plan = Plan { isolation, ..Plan::with_extra(cli.sweep, extra)? };
            sfu::note(&plan);
            if dry { dry_run::sweep(&plan, &exports) } else { sweep(plan, command_line, &exports) }
        }
    }
}

/// clap's message up to its first blank line, then its tips (`tip: a similar argument exists:
/// '--runtimes'`, clap's suggestion of the nearest flag or value), on one line, without its
/// `error: ` prefix.
fn first_paragraph(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().map(str::trim).take_while(|line| !line.is_empty()).collect();
    let tips = rendered.lines().map(str::trim).skip(lines.len()).filter(|line| line.starts_with("tip: "));
    let said = lines.join(" ").trim_start_matches("error: ").to_owned();
    tips.fold(said, |said, tip| format!("{said}; {tip}"))
}

/// Loads a CSV given on the command line: a bad file is a usage error (exit 2); a partial
/// last line is skipped with a warning.
pub(crate) fn read(path: &Path) -> anyhow::Result<ResultsFile> {
    let samples = load::load(path).map_err(|error| UsageError(format!("{error:#}")))?;
    if samples.skipped_partial_line {
        print_error(&format!("warning: {}: skipped a partial last line (a run stopped mid-write)", path.display()));
    }
    Ok(samples)
}

/// A line on stderr. A closed or failing stderr (a hung-up terminal) is ignored: the exit
/// code still says what happened.
pub(crate) fn print_error(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The file name of `path`, or the whole path when it has none.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned())
}
