//! The options of a paired A/B run (`channel-bench ab`) and of a round's child process.

use std::path::PathBuf;

use clap::Args;

use super::SweepArgs;

/// `channel-bench ab --baseline PATH [SWEEP FLAGS]`.
#[derive(Debug, Args)]
pub struct AbArgs {
    /// The build to compare this one with: a channel-bench binary (or one built on
    /// `app::main_with`) that speaks this build's take-round protocol; may be this binary
    #[arg(long, value_name = "PATH", required_unless_present = "from")]
    pub baseline: Option<PathBuf>,
    /// Judge the CSV of an earlier A/B run again instead of measuring: print its verdicts
    /// (and apply `--fail-on-slower`), writing nothing
    #[arg(long, value_name = "CSV", conflicts_with = "baseline")]
    pub from: Option<PathBuf>,
    /// An environment variable set in the baseline's processes only (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env)]
    pub baseline_env: Vec<(String, String)>,
    /// An environment variable set in this build's processes only (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env)]
    pub candidate_env: Vec<(String, String)>,
    /// Exit 1 when a channel's band or cell is slower than the baseline by more than PCT
    /// percent, its interval excluding PCT
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub fail_on_slower: Option<f64>,
    /// Print the verdicts as JSON on stdout instead of the text
    #[arg(long)]
    pub json: bool,
    /// The sweep's options: which cells both builds measure, and how long the duels may take
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// `take-round [--protocol]`.
#[derive(Debug, Args)]
pub struct TakeRoundArgs {
    /// Print this build's take-round protocol, version and crates as one JSON line, and exit
    #[arg(long)]
    pub protocol: bool,
}

/// `KEY=VALUE` with a non-empty key.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}

/// A percentage above 0, such as `10` or `2.5`.
fn parse_percent(text: &str) -> Result<f64, String> {
    match text.trim_end_matches('%').parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("{text:?} is not a percentage above 0, such as 10")),
    }
}
