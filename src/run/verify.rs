//! Delivery verification: every sender's messages arrive as 0, 1, 2, … with no gap,
//! repeat or stranger, and exactly as many as were sent. Under `--send try` a gap is a
//! dropped message and allowed, but each sender's sequence must still only go up, and the
//! messages received plus those the senders counted as dropped must be exactly those sent.

use std::cmp::Ordering;
use std::fmt;

/// The outcome of one sample, as written in the CSV `status` column.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Status {
    /// Every message arrived, each sender's in order.
    #[default]
    Ok,
    /// Fewer messages arrived than were sent.
    Lost(String),
    /// As many arrived as were sent, but some sender's sequence was out of order.
    Reordered(String),
    /// More messages arrived than were sent.
    Duplicated(String),
    /// A message named a sender that does not exist.
    Corrupted(String),
    /// The channel does not hold exactly the capacity it was made with
    /// (`channel::probe_capacity`); the cell is not sampled.
    Capacity(String),
    /// The cell's channel cannot run it (`plan::Cell::refusal`, the reason): not sampled, a
    /// refused row rather than a failure.
    Refused(String),
    /// A sending or receiving task panicked.
    Panicked(String),
    /// The `--sink` file could not be written, or does not hold the bytes received.
    Sink(String),
    /// The sample did not finish within the watchdog's time limit.
    Timeout(std::time::Duration),
}

/// How a refused cell's status begins in the CSV ([`Status::Refused`]).
pub const REFUSED: &str = "capacity: refused:";

impl Status {
    /// Whether the sample counts.
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }

    /// Whether `status`, as the CSV's `status` column holds it, is a [`Status::Refused`].
    pub fn is_refusal(status: &str) -> bool {
        status.starts_with(REFUSED)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, detail) = match self {
            Status::Ok => return f.write_str("ok"),
            Status::Refused(reason) => return write!(f, "{REFUSED} {reason}; not measured"),
            Status::Timeout(limit) => {
                return write!(f, "timeout: still running after {} s, abandoned", limit.as_secs_f64());
            }
            Status::Lost(detail) => ("lost", detail),
            Status::Reordered(detail) => ("reordered", detail),
            Status::Duplicated(detail) => ("duplicated", detail),
            Status::Corrupted(detail) => ("corrupted", detail),
            Status::Capacity(detail) => ("capacity", detail),
            Status::Panicked(detail) => ("panicked", detail),
            Status::Sink(detail) => ("sink", detail),
        };
        write!(f, "{kind}: {detail}")
    }
}

/// The first message that did not carry the sequence number its sender was at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anomaly {
    sender: u32,
    expected: u32,
    got: u32,
}

/// Checks messages as the receiver takes them; cheap enough for the hot path
/// (one compare and two increments per message).
#[derive(Debug, Clone)]
pub struct Verifier {
    expected: Vec<u32>,
    next: Vec<u32>,
    received: u64,
    first_anomaly: Option<Anomaly>,
    stranger: Option<u32>,
    /// `--send try`: a sequence may skip ahead (the skipped messages were dropped).
    gaps_allowed: bool,
}

impl Verifier {
    /// A verifier for senders `0..per_sender.len()`, sender `i` sending `per_sender[i]` messages;
    /// with `gaps_allowed`, for senders that drop messages when the channel is full (`--send try`).
    pub fn new(per_sender: Vec<u32>, gaps_allowed: bool) -> Self {
        let next = vec![0; per_sender.len()];
        Self { expected: per_sender, next, received: 0, first_anomaly: None, stranger: None, gaps_allowed }
    }

    /// Records one received message.
    #[inline]
    pub fn observe(&mut self, sender: u32, seq: u32) {
        self.received += 1;
        match self.next.get_mut(sender as usize) {
            Some(next) if *next == seq => *next += 1,
            _ => self.out_of_line(sender, seq),
        }
    }

    #[cold]
    fn out_of_line(&mut self, sender: u32, seq: u32) {
        let Some(next) = self.next.get_mut(sender as usize) else {
            self.stranger.get_or_insert(sender);
            return;
        };
        if self.gaps_allowed && seq > *next {
            *next = seq + 1;
            return;
        }
        self.first_anomaly.get_or_insert(Anomaly { sender, expected: *next, got: seq });
        *next = (*next).max(seq.saturating_add(1));
    }

    /// The verdict once the channel is closed and drained and the senders have said how many
    /// messages they `dropped`. With gaps allowed, a sequence that went back is reordered (or
    /// duplicated, when it repeated the message just before); received plus dropped must equal sent.
    pub fn finish(self, dropped: u64) -> Status {
        let sent: u64 = self.expected.iter().map(|&count| u64::from(count)).sum();
        if let Some(sender) = self.stranger {
            return Status::Corrupted(format!("message from sender {sender}, but only {} exist", self.expected.len()));
        }
        if !self.gaps_allowed {
            return self.finish_strict(sent);
        }
        if let Some(Anomaly { sender, expected, got }) = self.first_anomaly {
            let last = expected - 1;
            return if got == last {
                Status::Duplicated(format!("sender {sender}: seq {got} arrived twice"))
            } else {
                Status::Reordered(format!("sender {sender}: seq {got} arrived after seq {last}"))
            };
        }
        let accounted = self.received + dropped;
        match accounted.cmp(&sent) {
            Ordering::Equal => Status::Ok,
            Ordering::Less => Status::Lost(format!(
                "{} of {sent} messages neither arrived nor were counted as dropped ({} arrived, {dropped} dropped)",
                sent - accounted,
                self.received
            )),
            Ordering::Greater => Status::Duplicated(format!(
                "{} arrived and {dropped} were dropped, but only {sent} were sent",
                self.received
            )),
        }
    }

    /// Messages received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The verdict of a run stopped at its bound (`run::measure::Bound`) before every message
    /// arrived: what did arrive came from known senders, each in order, with no gap and no
    /// repeat. The missing tail is not a loss.
    pub fn finish_stopped(self) -> Status {
        if let Some(sender) = self.stranger {
            return Status::Corrupted(format!("message from sender {sender}, but only {} exist", self.expected.len()));
        }
        match self.first_anomaly {
            None => Status::Ok,
            Some(Anomaly { sender, expected, got }) if got > expected => {
                Status::Lost(format!("sender {sender}: seq {expected} missing before the bound (seq {got} came next)"))
            }
            Some(Anomaly { sender, got, .. }) => Status::Reordered(format!("sender {sender}: seq {got} arrived late")),
        }
    }

    /// [`Verifier::finish`] with no gaps allowed: every message of the `sent` arrived, in order.
    fn finish_strict(self, sent: u64) -> Status {
        // A sender whose sequence stopped short: it lost its tail (or, after a gap, more).
        let short = (self.next.iter().zip(&self.expected))
            .position(|(next, expected)| next < expected)
            .map(|sender| (sender, self.next[sender], self.expected[sender]));
        let missing = sent.saturating_sub(self.received);
        match (self.received.cmp(&sent), self.first_anomaly) {
            (Ordering::Less, Some(Anomaly { sender, expected, got })) if got > expected => Status::Lost(format!(
                "{missing} of {sent} messages missing; first: sender {sender} seq {expected} (seq {got} came next)"
            )),
            (Ordering::Less, _) | (Ordering::Equal, None) if short.is_some() => {
                let (sender, next, expected) = short.expect("checked");
                Status::Lost(format!(
                    "{missing} of {sent} messages missing; first: sender {sender} seq {next} (it sent {expected})"
                ))
            }
            (Ordering::Less, _) => Status::Lost(format!("{missing} of {sent} messages missing")),
            (Ordering::Greater, anomaly) => {
                let extra = self.received - sent;
                let first = anomaly
                    .map(|a| format!("; first: sender {} seq {} again after seq {}", a.sender, a.got, a.expected - 1))
                    .unwrap_or_default();
                Status::Duplicated(format!("{extra} more than the {sent} sent{first}"))
            }
            (Ordering::Equal, Some(Anomaly { sender, expected, got })) => {
                Status::Reordered(format!("sender {sender}: seq {got} arrived when seq {expected} was due"))
            }
            (Ordering::Equal, None) => Status::Ok,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(per_sender: &[u32], arrivals: &[(u32, u32)]) -> Status {
        let mut verifier = Verifier::new(per_sender.to_vec(), false);
        for &(sender, seq) in arrivals {
            verifier.observe(sender, seq);
        }
        verifier.finish(0)
    }

    #[test]
    fn a_run_stopped_at_its_bound_checks_what_arrived_and_not_the_missing_tail() {
        let stopped = |arrivals: &[(u32, u32)]| {
            let mut verifier = Verifier::new(vec![5, 5], false);
            for &(sender, seq) in arrivals {
                verifier.observe(sender, seq);
            }
            (verifier.received(), verifier.finish_stopped())
        };
        assert_eq!(stopped(&[(0, 0), (1, 0), (0, 1)]), (3, Status::Ok));
        assert!(matches!(stopped(&[(0, 0), (0, 2)]).1, Status::Lost(_)));
        assert!(matches!(stopped(&[(0, 0), (0, 1), (0, 0)]).1, Status::Reordered(_)));
        assert!(matches!(stopped(&[(7, 0)]).1, Status::Corrupted(_)));
    }

    #[test]
    fn in_order_interleaved_senders_are_ok() {
        let arrivals = [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (0, 2)];
        assert_eq!(run(&[3, 3], &arrivals), Status::Ok);
    }

    #[test]
    fn a_gap_is_lost_and_names_sender_and_seq() {
        let status = run(&[3, 2], &[(0, 0), (1, 0), (0, 2), (1, 1)]);
        assert_eq!(status, Status::Lost("1 of 5 messages missing; first: sender 0 seq 1 (seq 2 came next)".into()));
    }

    #[test]
    fn a_missing_tail_is_lost() {
        let status = run(&[2, 2], &[(0, 0), (1, 0), (0, 1)]);
        assert_eq!(status, Status::Lost("1 of 4 messages missing; first: sender 1 seq 1 (it sent 2)".into()));
    }

    #[test]
    fn a_swap_is_reordered() {
        let status = run(&[3], &[(0, 0), (0, 2), (0, 1)]);
        assert_eq!(status, Status::Reordered("sender 0: seq 2 arrived when seq 1 was due".into()));
    }

    #[test]
    fn a_repeat_is_duplicated() {
        let status = run(&[2], &[(0, 0), (0, 1), (0, 1)]);
        assert_eq!(
            status,
            Status::Duplicated("1 more than the 2 sent; first: sender 0 seq 1 again after seq 1".into())
        );
    }

    #[test]
    fn an_unknown_sender_is_corrupted() {
        let status = run(&[1], &[(0, 0), (7, 0)]);
        assert!(matches!(status, Status::Corrupted(_)), "{status}");
    }

    #[test]
    fn a_loss_hidden_by_an_extra_is_still_caught() {
        // Sender 0 lost seq 1, sender 1 sent one past its count: totals match, sequences don't.
        let status = run(&[2, 1], &[(0, 0), (1, 0), (1, 1)]);
        assert!(!status.is_ok(), "{status}");
    }

    fn run_try(per_sender: &[u32], arrivals: &[(u32, u32)], dropped: u64) -> Status {
        let mut verifier = Verifier::new(per_sender.to_vec(), true);
        for &(sender, seq) in arrivals {
            verifier.observe(sender, seq);
        }
        verifier.finish(dropped)
    }

    #[test]
    fn under_try_gaps_that_the_senders_dropped_are_ok() {
        let arrivals = [(0, 0), (1, 1), (0, 3), (1, 2), (0, 4)];
        assert_eq!(run_try(&[5, 3], &arrivals, 3), Status::Ok);
        // Everything dropped is still accounted for.
        assert_eq!(run_try(&[2, 2], &[], 4), Status::Ok);
    }

    #[test]
    fn under_try_a_gap_nobody_dropped_is_lost() {
        let status = run_try(&[3], &[(0, 0), (0, 2)], 0);
        assert_eq!(
            status,
            Status::Lost("1 of 3 messages neither arrived nor were counted as dropped (2 arrived, 0 dropped)".into())
        );
    }

    #[test]
    fn under_try_reordering_and_repeats_are_still_caught() {
        let swap = run_try(&[4], &[(0, 0), (0, 2), (0, 1), (0, 3)], 0);
        assert_eq!(swap, Status::Reordered("sender 0: seq 1 arrived after seq 2".into()));
        let repeat = run_try(&[3], &[(0, 0), (0, 1), (0, 1)], 1);
        assert_eq!(repeat, Status::Duplicated("sender 0: seq 1 arrived twice".into()));
        let stranger = run_try(&[1], &[(0, 0), (5, 0)], 0);
        assert!(matches!(stranger, Status::Corrupted(_)), "{stranger}");
        // More accounted for than sent: a repeat hidden behind a gap.
        let extra = run_try(&[2], &[(0, 0), (0, 1)], 1);
        assert!(matches!(extra, Status::Duplicated(_)), "{extra}");
    }

    #[test]
    fn status_text_is_the_csv_form() {
        assert_eq!(Status::Ok.to_string(), "ok");
        assert_eq!(Status::Lost("x".into()).to_string(), "lost: x");
    }
}
