use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Parser;
use clap::error::ErrorKind;

use channel_bench::channel::CHANNELS;
use channel_bench::cli::{Cli, Plan, UsageError};
use channel_bench::report::{Console, CsvSink};
use channel_bench::{machine, sweep};

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
    if cli.list_channels {
        list_channels();
        return Ok(ExitCode::SUCCESS);
    }
    let plan = Plan::try_from(cli)?;

    let started = SystemTime::now();
    let out = plan.out.clone().unwrap_or_else(|| default_out(started));
    let mut csv = CsvSink::create(&out, plan.force).map_err(|error| UsageError(format!("{error:#}")))?;
    let command_line = std::env::args().collect();
    let started_utc = humantime::format_rfc3339_seconds(started).to_string();
    machine::describe(&plan.channels, command_line, started_utc).write(&out.with_extension("json"))?;

    let runs = plan.cells() * plan.runs_per_cell();
    let console = Console::new(runs as u64);
    console.header(plan.messages, plan.capacity, plan.payload_bytes);
    let failed_cells = sweep::run(&plan, &console, &mut csv)?;
    console.finish(csv.path(), &failed_cells);
    Ok(if failed_cells.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `results/channel-bench-<UTC timestamp>.csv`, the timestamp like `20261121T213353Z`.
fn default_out(started: SystemTime) -> PathBuf {
    let stamp: String =
        humantime::format_rfc3339_seconds(started).to_string().chars().filter(|c| !matches!(c, '-' | ':')).collect();
    PathBuf::from("results").join(format!("channel-bench-{stamp}.csv"))
}

/// clap's message up to its first blank line, on one line, without its `error: ` prefix.
fn first_paragraph(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().map(str::trim).take_while(|line| !line.is_empty()).collect();
    lines.join(" ").trim_start_matches("error: ").to_owned()
}

fn list_channels() {
    println!("{:<16} {:<16} {:<10} capacity", "channel", "crate", "version");
    for channel in CHANNELS {
        let capacity = match channel.slots_per_sender {
            0 => "exact".to_owned(),
            slots => format!("exact (buffer = capacity - {slots} per sender)"),
        };
        let version = machine::locked_version(channel.crate_name);
        println!("{:<16} {:<16} {:<10} {capacity}", channel.name, channel.crate_name, version);
    }
}
