//! `channel-bench sfu`: the SFU's load as a preset of ordinary sweep flags. The preset only
//! fills flags; a flag given after `sfu` replaces the preset's, and the merged command line
//! is printed first so the sweep can be rerun by hand; `--participants N` measures one room
//! (`--tasks N`), whose decision the answer leads with, and whose memory it ends with (each
//! channel's heap at rest and kept after a burst, in both designs). docs/sfu.md says where the
//! numbers come from.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use super::{memory, print_error, sweep};
use crate::cli::{Cli, SfuArgs};
use crate::error::usage;
use crate::output;
use crate::output::console::print_line;
use crate::plan::Plan;
use crate::plan::estimate::wall_time_line;
use crate::registry::ChannelEntry;
use crate::run::rounds::Isolation;
use crate::run::workload::SendMode;

/// The preset, as sweep flags: the multi-thread runtime and cloned-send (what an SFU runs:
/// every participant's task holds a clone of the router's sender), 20 ms frames of 5 packets
/// (one Opus audio packet and four video packets of at most 1200 bytes: about 1.5 Mbit/s of
/// video), participants out of phase and in phase, the non-blocking send, latency stamps,
/// 1024 slots (less than 512 participants' aligned frames, so the worst case can overflow),
/// two screening rounds and duels (on p99 and CPU, and the room's contenders until their figures
/// settle) that fit 5 minutes with the 13 built-in channels, 3 for one room of participants.
pub const PRESET: &str = "--runtimes multi-thread --modes cloned-send --tasks 1,8,64,512 --pace 20ms --burst 5 \
     --phase random,aligned --send try --latency --capacity 1024 --duration 1s --samples 2 --max-time 0.36";

/// Runs the preset with `args`' flags over it, its rounds where `isolation` says.
pub fn run(extra: &'static [ChannelEntry], args: &SfuArgs, isolation: Isolation) -> anyhow::Result<ExitCode> {
    let command_line = command_line(&args.flags)?;
    print_line(&format!("sfu: {}", command_line.join(" ")));
    let cli = Cli::try_parse_from(&command_line)
        .map_err(|error| usage(super::first_paragraph(&error.render().to_string())))?;
    if cli.command.is_some() {
        return Err(usage("sfu takes sweep flags only: give the subcommand on its own"));
    }
    let (exports, dry) = (cli.sweep.export.clone(), cli.sweep.dry_run);
    let plan = Plan { isolation, ..Plan::with_extra(cli.sweep, extra)? };
    note(&plan);
    if dry {
        return super::dry_run::sweep(&plan, &exports);
    }
    print_line(&format!(
        "{} cells × {} screening rounds, then duels, {}",
        plan.cells().len(),
        plan.samples,
        wall_time_line(&plan)
    ));
    let room = (args.flags.iter().any(|flag| flag_name(&flag.to_string_lossy()) == Some("--participants")))
        .then(|| (plan.channels.clone(), plan.tasks[0], plan.capacities.clone(), plan.records.clone()));
    let code = sweep(plan, command_line, &exports)?;
    // After the sweep, its rounds' processes gone: the allocator counts this process alone.
    if let Some((channels, participants, capacities, records)) = room {
        print_line(&output::memory::room(&memory::room(&channels, participants, &capacities, &records)));
    }
    Ok(code)
}

/// `channel-bench` and the preset's flags, less those `flags` gives again, then `flags`;
/// `--participants N` becomes `--tasks N`: the room the user asked for, and nothing else (the
/// card reads only the room's cells).
pub fn command_line(flags: &[OsString]) -> anyhow::Result<Vec<String>> {
    let flags: Vec<String> = flags
        .iter()
        .map(|flag| {
            flag.to_str().map(str::to_owned).ok_or_else(|| usage(format!("sfu: {flag:?} is not UTF-8: retype it")))
        })
        .collect::<anyhow::Result<_>>()?;
    let flags = participants(flags)?;
    let given: Vec<&str> = flags.iter().filter_map(|flag| flag_name(flag)).collect();
    let mut line = vec!["channel-bench".to_owned()];
    let mut keep = true;
    for token in PRESET.split_whitespace() {
        if let Some(name) = flag_name(token) {
            keep = !given.contains(&name);
        }
        if keep {
            line.push(token.to_owned());
        }
    }
    line.extend(flags);
    Ok(line)
}

/// The largest room `--participants` takes, as `--tasks` does.
const MOST_PARTICIPANTS: u64 = 65_536;

/// The `--max-time` of one room unless given: a room's cells are few, so its duels can sample
/// the pick and its closest challenger until their figures settle and stay within 3 minutes
/// (within 4 with both designs measured: twice the cells). A room of 12 to 724 participants
/// counts each cell three times (`Plan::duel_cells`).
const ROOM_MAX_TIME: &str = "0.83";

/// `flags` with `--participants N` (or `--participants=N`) replaced by `--tasks N`.
fn participants(mut flags: Vec<String>) -> anyhow::Result<Vec<String>> {
    let Some(at) = flags.iter().position(|flag| flag_name(flag) == Some("--participants")) else { return Ok(flags) };
    let (value, taken) = match flags[at].split_once('=') {
        Some((_, value)) => (Some(value.to_owned()), 1),
        None => (flags.get(at + 1).cloned(), 2),
    };
    let refuse = |why: &str| usage(format!("sfu: --participants {why}"));
    let n: u64 = match value.as_deref().map(str::parse) {
        Some(Ok(n)) if (1..=MOST_PARTICIPANTS).contains(&n) => n,
        Some(_) => {
            return Err(refuse(&format!(
                "takes a whole number from 1 to {MOST_PARTICIPANTS}, as in --participants 300"
            )));
        }
        None => return Err(refuse("needs a number: --participants 300")),
    };
    if flags.iter().any(|flag| flag_name(flag) == Some("--tasks")) {
        return Err(refuse("and --tasks both say how many tasks: give one of them"));
    }
    flags.splice(at..at + taken, ["--tasks".to_owned(), n.to_string()]);
    if !flags.iter().any(|flag| flag_name(flag) == Some("--max-time")) {
        flags.extend(["--max-time".to_owned(), ROOM_MAX_TIME.to_owned()]);
    }
    Ok(flags)
}

/// The flag a token names (`--tasks` of `--tasks` and `--tasks=1,2`), `None` for a value.
fn flag_name(token: &str) -> Option<&str> {
    token.starts_with("--").then(|| token.split('=').next().unwrap_or(token))
}

/// One line on stderr when the plan asks for something whose figure reads differently from
/// what its flags suggest: `--send try` with senders that run flat out.
pub fn note(plan: &Plan) {
    if plan.pace.is_none() && plan.sends.contains(&SendMode::Try) {
        print_error(
            "note: --send try without --pace: senders run flat out, so the drops measure how far they outrun \
             the receiver, not an SFU's load (add --pace 20ms for that)",
        );
    }
}
