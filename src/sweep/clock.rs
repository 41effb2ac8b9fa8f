//! When the duels stop ([`Clock`]).

use std::time::{Duration, Instant};

use crate::results::host;
use crate::results::load::of_rows;
use crate::results::schema::Record;

/// Whether the duels have begun and their time is spent ([`Clock::spent`]).
pub(super) fn spent(dueling: &mut Option<Clock>, rows: &[Record]) -> bool {
    dueling.as_mut().is_some_and(|clock| clock.spent(rows))
}

/// The duels' clock: when they began, how long they may take, and the longer bound
/// (`duels_bound`) that a noisy host earns once that is spent.
pub(super) struct Clock {
    /// When the duels began.
    pub(super) started: Instant,
    /// How long they may take: their budget, or the longer bound once a noisy host took it.
    pub(super) bound: Duration,
    /// The bound past the budget, taken when the budget is spent if the samples of the whole
    /// sweep so far left out [`host::NOISY_SHARE`] or more (`host::left_out_share`).
    pub(super) noisy: Option<Duration>,
}

impl Clock {
    /// Whether the duels' time is spent, `rows` being every row written so far.
    pub(super) fn spent(&mut self, rows: &[Record]) -> bool {
        if self.started.elapsed() < self.bound {
            return false;
        }
        match self.noisy.take() {
            Some(longer) if host::left_out_share(&of_rows(rows)) >= host::NOISY_SHARE => {
                self.bound = longer;
                self.started.elapsed() >= longer
            }
            _ => true,
        }
    }

    /// The time the duels have left once their budget is spent and a noisy host extended it;
    /// `None` inside the budget.
    pub(super) fn past_budget(&self) -> Option<Duration> {
        self.noisy.is_none().then(|| self.left().0)
    }

    /// The time left and the bound, as the console shows them.
    pub(super) fn left(&self) -> (Duration, Duration) {
        (self.bound.saturating_sub(self.started.elapsed()), self.bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::csv;
    use crate::plan::Plan;
    use crate::run::measure::Sample;
    use crate::run::verify::Status;

    #[test]
    fn the_duels_go_on_past_their_budget_only_when_the_samples_so_far_were_noisy() {
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from(["channel-bench", "--tasks", "4", "--channels", "flume"]).unwrap();
        let cell = Plan::with_extra(cli.sweep, &[]).unwrap().cells().remove(0);
        // Ten samples of one cell, `stolen` of them with a steal tick (left out as disturbed).
        let rows = |stolen: usize| -> Vec<Record> {
            (0..10)
                .map(|number| {
                    let mut sample = Sample::failed(Duration::from_millis(10), Duration::from_millis(5), Status::Ok);
                    sample.steal = (number < stolen).then_some(Duration::from_millis(10));
                    csv::record(&cell, number + 1, &sample)
                })
                .collect()
        };
        let spent_budget = Instant::now().checked_sub(Duration::from_secs(2)).unwrap();
        let clock =
            || Clock { started: spent_budget, bound: Duration::from_secs(1), noisy: Some(Duration::from_secs(60)) };
        assert!(clock().spent(&rows(0)), "a calm host stops at its budget");
        let mut noisy = clock();
        assert!(!noisy.spent(&rows(1)), "one sample in ten left out: noisy, the longer bound");
        assert_eq!(noisy.bound, Duration::from_secs(60));
        let mut early = Clock { bound: Duration::from_secs(60), ..clock() };
        assert!(!early.spent(&rows(0)) && early.noisy.is_some(), "inside the budget nothing is judged yet");
    }
}
