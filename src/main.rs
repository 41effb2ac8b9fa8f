//! The binary: parses the command line, dispatches to [`channel_bench::app`], and owns the
//! one error path (exit 2 for usage, 1 for everything else).

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use channel_bench::app;
use channel_bench::cli::{Cli, Command};
use channel_bench::error::UsageError;
use channel_bench::plan::Plan;

/// Counts nothing until `--count-allocs` opens its window around a sample's clock;
/// until then each allocation costs one relaxed load more (docs/methodology.md, `--count-allocs`).
#[global_allocator]
static ALLOCATOR: channel_bench::run::allocs::CountingAllocator = channel_bench::run::allocs::CountingAllocator;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(if error.is::<UsageError>() { 2 } else { 1 })
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            error.print()?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => return Err(UsageError(first_paragraph(&error.render().to_string())).into()),
    };
    match cli.command {
        Some(Command::Compare(args)) => app::compare(&args),
        Some(Command::Summary(args)) => app::summarize(&args),
        Some(Command::Report(args)) => app::report(&args),
        None if cli.sweep.list_channels => {
            app::list_channels();
            Ok(ExitCode::SUCCESS)
        }
        None => app::sweep(Plan::try_from(cli.sweep)?),
    }
}

/// clap's message up to its first blank line, on one line, without its `error: ` prefix.
fn first_paragraph(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().map(str::trim).take_while(|line| !line.is_empty()).collect();
    lines.join(" ").trim_start_matches("error: ").to_owned()
}
