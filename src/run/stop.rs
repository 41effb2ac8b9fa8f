//! A run stopped at its bound: a timer thread that, once the bound has passed since the clock
//! started, tells the receiving task to take no more messages. The receiver looks at the
//! signal each time its task is polled, never per message, so the receive loop is the same
//! in every run, bounded or not; a receiver that never waits (its channel always has a message
//! ready) is stopped at its first wait after the bound, or runs to its end.

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::task::{Poll, Waker};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;

/// The signal a run's receiver looks at: set once, by [`Timer`].
#[derive(Debug, Default)]
pub struct Signal {
    stopped: AtomicBool,
    waker: AtomicWaker,
}

impl Signal {
    /// Sets the signal and wakes the receiver.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.waker.wake();
    }
}

/// Runs `work` (a receive loop) until it ends or `signal` is set; whether it was stopped. The
/// signal is looked at only when `work` waits, and the task's waker registered only when it changes.
pub async fn until(signal: &Signal, work: impl Future<Output = ()>) -> bool {
    let mut work = pin!(work);
    let mut registered: Option<Waker> = None;
    std::future::poll_fn(|cx| {
        if work.as_mut().poll(cx).is_ready() {
            return Poll::Ready(false);
        }
        if !registered.as_ref().is_some_and(|waker| waker.will_wake(cx.waker())) {
            signal.waker.register(cx.waker());
            registered = Some(cx.waker().clone());
        }
        if signal.stopped.load(Ordering::Acquire) { Poll::Ready(true) } else { Poll::Pending }
    })
    .await
}

/// A thread that sets a run's [`Signal`] once `bound` has passed from [`Timer::start`], unless
/// the run ends first ([`Timer::finish`]). It is made and started before the clock starts, and
/// sleeps until then: the timed run pays nothing for it but the stop itself.
pub struct Timer {
    start: mpsc::Sender<Instant>,
    thread: JoinHandle<()>,
}

impl Timer {
    /// A timer for `signal`, waiting for its start.
    pub fn new(signal: Arc<Signal>, bound: Duration) -> std::io::Result<Self> {
        let (start, started) = mpsc::channel::<Instant>();
        let thread = std::thread::Builder::new().name("channel-bench bound".to_owned()).spawn(move || {
            let Ok(start) = started.recv() else { return };
            let left = (start + bound).saturating_duration_since(Instant::now());
            if let Err(mpsc::RecvTimeoutError::Timeout) = started.recv_timeout(left) {
                signal.stop();
            }
        })?;
        Ok(Self { start, thread })
    }

    /// Starts the bound at `at`, just before the clock's start.
    pub fn start(&self, at: Instant) {
        let _ = self.start.send(at);
    }

    /// Ends the timer once the run has ended, and waits for its thread.
    pub fn finish(self) {
        drop(self.start);
        let _ = self.thread.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_stops_at_its_signal_and_runs_to_its_end_without_one() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let signal = Arc::new(Signal::default());
        assert!(!runtime.block_on(until(&signal, async {})), "ended on its own");
        // A loop that never ends is stopped: the timer's thread wakes it.
        let timer = Timer::new(signal.clone(), Duration::from_millis(5)).unwrap();
        timer.start(Instant::now());
        assert!(runtime.block_on(until(&signal, std::future::pending())));
        timer.finish();
        // A timer finished before its bound never sets its signal.
        let quiet = Arc::new(Signal::default());
        let timer = Timer::new(quiet.clone(), Duration::from_secs(600)).unwrap();
        timer.start(Instant::now());
        timer.finish();
        assert!(!quiet.stopped.load(Ordering::Acquire));
    }
}
