//! The lines that say how a summary's or a comparison's verdicts were made: the noise model
//! (`results::noise`), with the runs it read ([`noise_line`]), how noisy the host was, as
//! the run measured it ([`host_line`]), and what a busy host means for the answer ([`busy_line`]).

use crate::output::format::{count, number, percent, thousands};
use crate::results::host::HostNoise;
use crate::results::load::MachineSpeed;
use crate::results::noise::{CHANGE_CONFIDENCE, Metric, VERDICT_CONFIDENCE};
use crate::run::measure::RuntimeKind;

/// `verdicts: …`, one line, without a trailing newline: what a verdict between two channels
/// (and, in a comparison, between two runs) rests on, for a file of `runs` pooled runs (1 for
/// one run).
pub fn noise_line(runs: usize) -> String {
    let percent = |runtime, paired| format!("{:.1}%", Metric::Speed.drift(runtime, paired) * 100.0);
    let (current, multi) = (RuntimeKind::CurrentThread, RuntimeKind::MultiThread);
    let [[current_paired, multi_paired], [current_unpaired, multi_unpaired]] =
        [true, false].map(|paired| [current, multi].map(|runtime| percent(runtime, paired)));
    let (verdict, change) = (VERDICT_CONFIDENCE * 100.0, CHANGE_CONFIDENCE * 100.0);
    let pooled = if runs > 1 { format!(", over the {runs} pooled runs") } else { String::new() };
    format!(
        "verdicts: {verdict:.0}% intervals of the ratio of two channels' samples paired round by round (this run's own \
         spread{pooled}), widened where the run's own A/A pairs (each pair's early and late halves) fall outside \
         them more often than stated, and widened by the drift measured through the run; a run too short to split \
         keeps a floor from A/A runs of a 2-core VM (sd {current_paired} current-thread, {multi_paired} multi-thread; \
         unpaired {current_unpaired} and {multi_unpaired}); compare judges cells at {change:.1}%, widened by the drift \
         measured between its two files"
    )
}

/// `host noise: …`, one line, without a trailing newline: the samples left out and why, the
/// machine's speed, per runtime whether the host was busy, the scale the run's A/A halves set,
/// and how close two channels could be and still be told apart.
pub fn host_line(host: &HostNoise) -> String {
    let why: Vec<String> = host.left_out.iter().map(|(why, n)| format!("{} {why}", thousands(*n as f64))).collect();
    let left_out = if why.is_empty() { String::new() } else { format!(" ({})", why.join(", ")) };
    let mut parts = vec![format!(
        "{} of {} samples left out{left_out}",
        thousands(host.left_out_count() as f64),
        thousands(host.samples as f64)
    )];
    parts.extend(host.machine.as_ref().map(machine_part));
    for runtime in &host.runtimes {
        let scale = match (runtime.scale, runtime.outside) {
            (Some(scale), Some(outside)) => format!(
                "intervals ×{} ({} A/A pairs, {} outside before)",
                number(scale),
                thousands(runtime.pairs as f64),
                percent(outside)
            ),
            _ => "too few rounds to calibrate".to_owned(),
        };
        let apart = runtime
            .told_apart
            .map_or(String::new(), |apart| format!("; channels closer than {} stay tied", percent(apart)));
        let busy = match (runtime.busy, runtime.waited) {
            (true, Some(waited)) => {
                format!("busy host, its threads waited for a core {} of the time they were ready; ", percent(waited))
            }
            _ => String::new(),
        };
        parts.push(format!("{}: {busy}{scale}{apart}", runtime.runtime));
    }
    format!("host noise: {}", parts.join("; "))
}

/// `busy host on multi-thread: …`: what the runtimes that ran on a busy host
/// (`RuntimeNoise::busy`) mean for the answer, said before it; `None` when none did. How long
/// their threads waited is the host line's ([`host_line`]).
pub fn busy_line(host: &HostNoise) -> Option<String> {
    let busy: Vec<String> =
        host.runtimes.iter().filter(|runtime| runtime.busy).map(|r| r.runtime.to_string()).collect();
    (!busy.is_empty()).then(|| {
        format!(
            "busy host on {}: other work kept the run's threads from their cores (how long: the host noise line), so \
             its figures are a busy host's and its verdicts are widened to hold on a free one \
             (docs/methodology.md#a-busy-host)",
            busy.join(" and ")
        )
    })
}

/// `machine: 160 ns a round trip between cores, 0.950 ns a loop step; slow in 32% of rounds
/// (2 stretches, 2.40× slower); fast in 5% of rounds (3.10× faster), those cells measured
/// again`: the run's typical readings of the machine, and its slow stretches and fast rounds,
/// when it had some.
fn machine_part(machine: &MachineSpeed) -> String {
    let handoff = machine.handoff_ns.map(|ns| format!("{} ns a round trip between cores", number(ns)));
    let step = machine.loop_ns.map(|ns| format!("{} ns a loop step", number(ns)));
    let readings: Vec<String> = handoff.into_iter().chain(step).collect();
    let share = |rounds: &[u64]| percent(rounds.len() as f64 / machine.rounds.max(1) as f64);
    let times = |factor: Option<f64>, words: &str| factor.map_or(String::new(), |f| format!("{}× {words}", number(f)));
    let slow = if machine.slow_rounds.is_empty() {
        "never slow".to_owned()
    } else {
        let stretches = count(machine.stretches as u64, "stretch", "stretches");
        let slower = times(machine.slower, "slower");
        let slower = if slower.is_empty() { slower } else { format!(", {slower}") };
        format!("slow in {} of rounds ({stretches}{slower})", share(&machine.slow_rounds))
    };
    let fast = match times(machine.faster, "faster") {
        _ if machine.fast_rounds.is_empty() => String::new(),
        faster if faster.is_empty() => format!("; fast in {} of rounds", share(&machine.fast_rounds)),
        faster => format!("; fast in {} of rounds ({faster})", share(&machine.fast_rounds)),
    };
    let again = match (machine.measured_again, machine.cells) {
        (_, 0) => String::new(),
        (again, cells) if again == cells => ", those cells measured again".to_owned(),
        (0, _) => ", those cells not measured again".to_owned(),
        (again, cells) => {
            format!(", {} of those {} cells measured again", thousands(again as f64), thousands(cells as f64))
        }
    };
    format!("machine: {}; {slow}{fast}{again}", readings.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::host::RuntimeNoise;

    #[test]
    fn the_line_names_the_model_and_the_pooled_runs_never_a_margin_past_100_percent() {
        let one = noise_line(1);
        assert!(one.starts_with("verdicts: 95% intervals") && !one.contains("pooled"), "{one}");
        assert!(noise_line(3).contains("over the 3 pooled runs"));
        assert!(!one.contains("1000%"));
    }

    #[test]
    fn the_host_line_says_what_was_left_out_and_what_the_run_could_tell_apart() {
        let mut host = HostNoise { samples: 1200, ..HostNoise::default() };
        host.left_out.insert("steal tick", 9);
        host.left_out.insert("neighbours", 3);
        host.runtimes.push(RuntimeNoise {
            runtime: RuntimeKind::CurrentThread,
            scale: Some(1.25),
            pairs: 96,
            outside: Some(0.125),
            told_apart: Some(0.031),
            waited: Some(0.002),
            busy: false,
        });
        host.runtimes.push(RuntimeNoise {
            runtime: RuntimeKind::MultiThread,
            scale: None,
            pairs: 0,
            outside: None,
            told_apart: None,
            waited: Some(0.46),
            busy: true,
        });
        assert_eq!(
            host_line(&host),
            "host noise: 12 of 1,200 samples left out (3 neighbours, 9 steal tick); current-thread: intervals \
             ×1.25 (96 A/A pairs, 12.5% outside before); channels closer than 3.10% stay tied; multi-thread: busy \
             host, its threads waited for a core 46.0% of the time they were ready; too few rounds to calibrate"
        );
        assert_eq!(
            busy_line(&host).as_deref(),
            Some(
                "busy host on multi-thread: other work kept the run's threads from their cores (how long: the host \
                 noise line), so its figures are a busy host's and its verdicts are widened to hold on a free one \
                 (docs/methodology.md#a-busy-host)"
            )
        );
        host.runtimes.retain(|runtime| !runtime.busy);
        assert_eq!(busy_line(&host), None, "no runtime busy, nothing said");
    }

    #[test]
    fn the_host_line_says_how_fast_the_machine_was_and_where_it_was_slow() {
        let calm =
            MachineSpeed { handoff_ns: Some(161.25), loop_ns: Some(0.95), rounds: 40, ..MachineSpeed::default() };
        let mut host = HostNoise { samples: 100, machine: Some(calm.clone()), ..HostNoise::default() };
        assert_eq!(
            host_line(&host),
            "host noise: 0 of 100 samples left out; machine: 161 ns a round trip between cores, 0.95 ns a loop step; \
             never slow"
        );
        let slow = MachineSpeed {
            slow_rounds: (1..=13).collect(),
            stretches: 2,
            slower: Some(2.4),
            samples: 30,
            cells: 12,
            measured_again: 12,
            ..calm
        };
        host.machine = Some(slow.clone());
        host.left_out.insert("machine slow", 30);
        assert_eq!(
            host_line(&host),
            "host noise: 30 of 100 samples left out (30 machine slow); machine: 161 ns a round trip between cores, \
             0.95 ns a loop step; slow in 32.5% of rounds (2 stretches, 2.40× slower), those cells measured again"
        );
        host.machine = Some(MachineSpeed { measured_again: 5, handoff_ns: None, slower: None, ..slow.clone() });
        assert!(host_line(&host).ends_with(
            "0.95 ns a loop step; slow in 32.5% of rounds (2 stretches), 5 of those 12 cells measured again"
        ));
        host.machine = Some(MachineSpeed { measured_again: 0, stretches: 1, ..slow.clone() });
        assert!(host_line(&host).ends_with("(1 stretch, 2.40× slower), those cells not measured again"));
        let fast = MachineSpeed { fast_rounds: vec![20, 21], faster: Some(3.1), ..slow.clone() };
        host.machine = Some(fast.clone());
        assert!(host_line(&host).ends_with(
            "slow in 32.5% of rounds (2 stretches, 2.40× slower); fast in 5.00% of rounds (3.10× faster), those \
             cells measured again"
        ));
        host.machine = Some(MachineSpeed { slow_rounds: Vec::new(), faster: None, ..fast });
        assert!(
            host_line(&host)
                .ends_with("0.95 ns a loop step; never slow; fast in 5.00% of rounds, those cells measured again")
        );
    }
}
