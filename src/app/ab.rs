//! A paired A/B run (`channel-bench ab`): the sweep's rounds, each measured by two builds in
//! processes of their own (this binary, the candidate, and the one at `--baseline`), in an
//! order drawn per round from a seed; then the ratio candidate / baseline per cell and band
//! (`results::ab`), the duels spent on the ones still open. Exit codes: 0, 1 when a cell
//! failed or `--fail-on-slower` found a slowdown past its figure, 2 for bad usage (a baseline
//! that is no channel-bench build of this take-round protocol too), 128 + a stop signal.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use anyhow::Context;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use super::print_error;
use super::sweep::{Measured, interrupted, measure};
use crate::cli::AbArgs;
use crate::error::UsageError;
use crate::output::{self, console::print_line, files, machine};
use crate::plan::Plan;
use crate::registry::{self, ChannelEntry};
use crate::results::ab::{self, Ab, BASELINE, CANDIDATE};
use crate::results::load::{CellKey, load_builds};
use crate::results::metadata::Build;
use crate::run::measure::{Sample, Watchdog};
use crate::run::rounds::{self, Isolation, Job, Launch, PROTOCOL};
use crate::sweep::{ORDER_SEED, Place};

/// The seed of which build measures each round first: the same plan alternates alike in every run.
const BUILD_ORDER_SEED: u64 = ORDER_SEED ^ 0xAB;

/// Answers `take-round --protocol`: this build as [`Build`] (no role, path or environment),
/// one JSON line on stdout.
pub fn protocol(extra: &'static [ChannelEntry]) -> anyhow::Result<ExitCode> {
    let build = Build {
        role: String::new(),
        path: String::new(),
        env: Vec::new(),
        protocol: PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        git_commit: machine::git_commit(),
        crates: machine::crates(registry::known().chain(extra)),
    };
    print_line(&serde_json::to_string(&build).expect("plain data serializes"));
    Ok(ExitCode::SUCCESS)
}

/// Runs `args`' A/B and writes its CSV, JSON and Markdown summary.
pub fn run(
    extra: &'static [ChannelEntry],
    args: AbArgs,
    command_line: Vec<String>,
    isolation: Isolation,
) -> anyhow::Result<ExitCode> {
    if isolation != Isolation::Process {
        return Err(
            UsageError("ab measures in processes of two binaries: run it from a channel-bench binary".into()).into()
        );
    }
    let (exports, dry) = (args.sweep.export.clone(), args.sweep.dry_run);
    let plan = Plan { isolation, ..Plan::with_extra(args.sweep, extra)? };
    if dry {
        print_line("ab: each round is measured twice, once by each build");
        return super::dry_run::sweep(&plan, &exports);
    }
    let this = Launch::this()?;
    let candidate = Launch { env: args.candidate_env, ..this };
    let baseline = Launch { exe: args.baseline, env: args.baseline_env };
    let builds = vec![describe(&baseline, BASELINE)?, describe(&candidate, CANDIDATE)?];
    let mut place = Paired {
        sides: [(baseline, BASELINE), (candidate, CANDIDATE)],
        order: Pcg64Mcg::seed_from_u64(BUILD_ORDER_SEED),
    };
    let Measured { set, csv, outcome, stop, cells } = measure(&plan, command_line, builds, &mut place)?;
    let answered = answer(&csv, &set.markdown(), plan.force, args.json);
    if let Some(code) = interrupted(&outcome, &stop, cells, &csv, answered.as_ref().err()) {
        return Ok(code);
    }
    let ab = answered?;
    if let Some(percent) = args.fail_on_slower {
        let limit = 1.0 + percent / 100.0;
        let past: Vec<String> =
            ab.bands.iter().chain(&ab.cells).filter(|change| change.low > limit).map(output::ab::line).collect();
        if let Some(first) = past.first() {
            print_error(&format!("slower by more than {percent}% ({} verdicts), first: {first}", past.len()));
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(if outcome.failed_cells.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Judges the CSV at `csv`, prints the answer (as JSON under `json`) and writes its Markdown
/// to `markdown`.
fn answer(csv: &Path, markdown: &Path, force: bool, json: bool) -> anyhow::Result<Ab> {
    let [baseline, candidate] = load_builds(csv, [BASELINE, CANDIDATE])?;
    let ab = ab::judge(&baseline, &candidate);
    let text = output::ab::text(&ab);
    files::write(markdown, text.as_bytes(), force, "the A/B summary")?;
    print_line(&format!("summary: {}", markdown.display()));
    print_line("");
    // Last, so that a script reads the JSON from the first `{` of stdout to its end.
    print_line(&if json { output::ab::json(&ab) } else { text });
    Ok(ab)
}

/// Asks `launch` which take-round protocol it speaks (`take-round --protocol`): its [`Build`],
/// or a usage error saying which builds can be paired.
fn describe(launch: &Launch, role: &str) -> anyhow::Result<Build> {
    let refused = |why: String| {
        UsageError(format!(
            "{} cannot be the {role}: {why}; ab pairs channel-bench builds of take-round protocol {PROTOCOL} \
             (this version, {}, and later ones that keep it)",
            launch.exe.display(),
            env!("CARGO_PKG_VERSION")
        ))
    };
    let mut child = Command::new(&launch.exe)
        .args([rounds::SUBCOMMAND, "--protocol"])
        .envs(launch.env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| refused(format!("it does not start ({error})")))?;
    let mut first = String::new();
    let read =
        child.stdout.take().map(|stdout| BufReader::new(std::io::Read::take(stdout, 1 << 16)).read_line(&mut first));
    let _ = child.kill();
    child.wait().context("cannot wait for the baseline's answer")?;
    let answer: Option<Build> = read.and_then(Result::ok).and_then(|_| serde_json::from_str(first.trim()).ok());
    match answer {
        Some(build) if build.protocol == PROTOCOL => Ok(Build {
            role: role.to_owned(),
            path: launch.exe.display().to_string(),
            env: launch.env.iter().map(|(key, value)| format!("{key}={value}")).collect(),
            ..build
        }),
        Some(build) => Err(refused(format!("it speaks take-round protocol {}", build.protocol)).into()),
        None => Err(refused("it does not answer take-round --protocol".to_owned()).into()),
    }
}

/// Each round measured by both builds, in processes of their own, the first drawn per round.
struct Paired {
    /// The two builds and the `build` of their rows.
    sides: [(Launch, &'static str); 2],
    /// Draws which build goes first.
    order: Pcg64Mcg,
}

impl Place for Paired {
    fn take(
        &mut self,
        _isolation: Isolation,
        jobs: &[Job],
        watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        let mut order = [0, 1];
        order.shuffle(&mut self.order);
        for (launch, build) in order.map(|at| &self.sides[at]) {
            if !rounds::take_in(launch, jobs, watchdog, &mut |at, sample| taken(at, build, sample))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn duels(&mut self, csv: &Path) -> anyhow::Result<Option<Vec<CellKey>>> {
        let [baseline, candidate] = load_builds(csv, [BASELINE, CANDIDATE])?;
        let ab = ab::judge(&baseline, &candidate);
        Ok(Some(ab.open(&baseline)))
    }

    fn screens(&self) -> bool {
        false
    }
}
