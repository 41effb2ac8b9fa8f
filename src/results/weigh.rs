//! What a room's decision weighs, in order (`--weigh`): each figure a [`Weigh`], the order a
//! [`Weighing`]. A challenger is ahead of a channel when it is better beyond the noise on the
//! first figure, or within the noise on it and better beyond the noise on the next, and so on.
//! The default is the SFU's order: frames overflowed in phase, then CPU out of phase.

use std::fmt;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

/// A figure the room's decision can weigh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weigh {
    /// The share of frames overflowed, in the cell drops are judged in: with every participant
    /// in phase, or out of phase when only that was measured.
    Drops,
    /// CPU per delivered message, in the cell CPU is judged in: out of phase, or in phase when
    /// only that was measured.
    Cpu,
    /// The p99 latency pooled over every delivered message (the samples' histograms merged),
    /// in the cell drops are judged in (in phase: the tail a room sees when every participant
    /// sends at once).
    P99,
}

impl Weigh {
    /// The flag's value: `drops`, `cpu`, `p99`.
    pub fn name(self) -> &'static str {
        match self {
            Weigh::Drops => "drops",
            Weigh::Cpu => "cpu",
            Weigh::P99 => "p99",
        }
    }
}

/// The figures a room's decision weighs, first the one that decides unless it is within the
/// noise; each at most once, at least one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Weigh>", into = "Vec<Weigh>")]
pub struct Weighing(Vec<Weigh>);

/// The SFU's order: frames overflowed with every participant in phase (the worst case a room
/// sees), then CPU per delivered message out of phase (what an ordinary call costs).
pub const SFU_ORDER: [Weigh; 2] = [Weigh::Drops, Weigh::Cpu];

impl Default for Weighing {
    fn default() -> Self {
        Weighing(SFU_ORDER.to_vec())
    }
}

impl Weighing {
    /// The figures in order.
    pub fn order(&self) -> &[Weigh] {
        &self.0
    }

    /// The first figure: the one that decides unless two channels are within its noise.
    pub fn first(&self) -> Weigh {
        self.0[0]
    }

    /// Whether `figure` is weighed at all.
    pub fn weighs(&self, figure: Weigh) -> bool {
        self.0.contains(&figure)
    }

    /// Whether this is the default order ([`SFU_ORDER`]).
    pub fn is_default(&self) -> bool {
        self.0 == SFU_ORDER
    }

    /// The order a run's answer weighs: `given` (`summary --weigh`), else the `run`'s own
    /// (`--weigh`, from its JSON's `weigh`), else the default.
    pub fn of_run(run: Option<&Weighing>, given: Option<&Weighing>) -> Weighing {
        given.or(run).cloned().unwrap_or_default()
    }
}

impl TryFrom<Vec<Weigh>> for Weighing {
    type Error = String;

    fn try_from(order: Vec<Weigh>) -> Result<Self, String> {
        if order.is_empty() {
            return Err("name one figure or more: drops, cpu, p99".to_owned());
        }
        if let Some(twice) =
            order.iter().enumerate().find_map(|(at, figure)| order[..at].contains(figure).then_some(figure))
        {
            return Err(format!("{} is named twice: name each figure once", twice.name()));
        }
        Ok(Weighing(order))
    }
}

impl From<Weighing> for Vec<Weigh> {
    fn from(weighing: Weighing) -> Self {
        weighing.0
    }
}

impl fmt::Display for Weighing {
    /// The flag's value: `drops,cpu`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|figure| figure.name()).collect();
        f.write_str(&names.join(","))
    }
}

/// `--weigh`'s value parser: comma-separated figures, each one of [`Weigh`]'s values (clap's
/// own parser of the enum), each at most once.
pub fn parse(value: &str) -> Result<Weighing, String> {
    let order = value
        .split(',')
        .map(|name| {
            Weigh::from_str(name.trim(), true)
                .map_err(|_| format!("{name:?} is not a figure the decision weighs: give drops, cpu or p99"))
        })
        .collect::<Result<Vec<Weigh>, String>>()?;
    Weighing::try_from(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_is_parsed_into_figures_each_once() {
        assert_eq!(parse("p99,cpu").unwrap().order(), [Weigh::P99, Weigh::Cpu]);
        assert_eq!(parse("drops").unwrap().order(), [Weigh::Drops]);
        assert!(parse("drops,cpu").unwrap().is_default() && Weighing::default().is_default());
        assert_eq!(parse("cpu,p99").unwrap().to_string(), "cpu,p99");
        assert!(parse("p99,latency").unwrap_err().contains("\"latency\" is not a figure"));
        assert!(parse("cpu,cpu").unwrap_err().contains("cpu is named twice"));
        assert!(parse("").is_err());
        let json = serde_json::to_string(&parse("p99,drops").unwrap()).unwrap();
        assert_eq!(json, r#"["p99","drops"]"#);
        assert_eq!(serde_json::from_str::<Weighing>(&json).unwrap(), parse("p99,drops").unwrap());
        assert!(serde_json::from_str::<Weighing>(r#"["cpu","cpu"]"#).is_err());
    }
}
