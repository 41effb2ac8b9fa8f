//! Channels that misbehave on purpose, so the tests can prove the harness catches it.
//! Built only with the cargo feature `faults`; a normal build neither has nor lists them.

use std::marker::PhantomData;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc::Receiver;

use super::adapters::TokioMpsc;
use super::{Channel, Closed, Item, TrySendError};

/// What a fault changes in tokio's channel; the channel is [`Faulty`]`<Self>`, named [`Fault::NAME`].
pub trait Fault: 'static {
    /// The channel's name.
    const NAME: &'static str;

    /// Whether a send drops `message` silently, reporting it sent.
    fn lose<T: Item>(_message: &T) -> bool {
        false
    }

    /// The receiver's poll: tokio's own, each message it delivers handed to [`Fault::received`],
    /// unless the fault changes it.
    fn poll_recv<T: Item>(receiver: &mut Receiver<T>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let polled = receiver.poll_recv(cx);
        if let Poll::Ready(Some(message)) = &polled {
            Self::received(message);
        }
        polled
    }

    /// What the fault does with a message its receiver delivers: nothing, unless it says.
    fn received<T: Item>(_message: &T) {}
}

/// tokio's channel, with the fault `F`.
pub struct Faulty<F>(PhantomData<F>);

impl<F: Fault> Channel for Faulty<F> {
    const NAME: &'static str = F::NAME;
    const CRATE: &'static str = "tokio";
    type Sender<T: Item> = <TokioMpsc as Channel>::Sender<T>;
    type Receiver<T: Item> = Receiver<T>;

    fn bounded<T: Item>(capacity: usize, senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        TokioMpsc::bounded(capacity, senders)
    }
    async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
        if F::lose(&message) {
            return Ok(());
        }
        TokioMpsc::send(sender, message).await
    }
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        if F::lose(&message) {
            return Ok(());
        }
        TokioMpsc::try_send(sender, message)
    }
    async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        std::future::poll_fn(|cx| F::poll_recv(receiver, cx)).await
    }
    fn stream<T: Item>(receiver: &mut Self::Receiver<T>) -> impl Stream<Item = T> + Send + '_ {
        futures::stream::poll_fn(|cx| F::poll_recv(receiver, cx))
    }
}

/// The fault of `fault-hang`: its receiver never takes a message and is never woken; every
/// sample hangs.
pub struct Hang;

impl Fault for Hang {
    const NAME: &'static str = "fault-hang";

    fn poll_recv<T: Item>(_receiver: &mut Receiver<T>, _cx: &mut Context<'_>) -> Poll<Option<T>> {
        Poll::Pending
    }
}

/// Every sender's messages number `LOSS_EVERY`, 2·`LOSS_EVERY`, … (seq 99, 199, … ) vanish.
pub const LOSS_EVERY: u32 = 100;

/// The fault of `fault-lossy`: it silently drops one message in every [`LOSS_EVERY`] of each sender.
pub struct Lossy;

impl Fault for Lossy {
    const NAME: &'static str = "fault-lossy";

    fn lose<T: Item>(message: &T) -> bool {
        (message.seq() + 1).is_multiple_of(LOSS_EVERY)
    }
}

/// A tokio channel whose receiver swaps every two consecutive messages: nothing is lost,
/// but with one sender its sequence arrives 1, 0, 3, 2, …
pub struct Reorder;

/// [`Reorder`]'s receiver: tokio's, and the message it holds back.
#[derive(Debug)]
pub struct ReorderReceiver<T: Item> {
    receiver: <TokioMpsc as Channel>::Receiver<T>,
    held: Option<T>,
}

impl Channel for Reorder {
    const NAME: &'static str = "fault-reorder";
    const CRATE: &'static str = "tokio";
    type Sender<T: Item> = <TokioMpsc as Channel>::Sender<T>;
    type Receiver<T: Item> = ReorderReceiver<T>;

    fn bounded<T: Item>(capacity: usize, senders: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        let (sender, receiver) = TokioMpsc::bounded::<T>(capacity, senders);
        (sender, ReorderReceiver { receiver, held: None })
    }
    async fn send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), Closed> {
        TokioMpsc::send(sender, message).await
    }
    fn try_send<T: Item>(sender: &mut Self::Sender<T>, message: T) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv<T: Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        if let Some(message) = receiver.held.take() {
            return Some(message);
        }
        let first = receiver.receiver.recv().await?;
        match receiver.receiver.recv().await {
            Some(second) => {
                receiver.held = Some(first);
                Some(second)
            }
            None => Some(first),
        }
    }
}

/// Every body `fault-leaky` delivered, copied and never freed.
static KEPT: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

/// The fault of `fault-leaky`: it keeps a copy of every body it delivers, for the life of the
/// process; its memory grows with the messages moved, as a channel with a growing queue would.
pub struct Leaky;

impl Fault for Leaky {
    const NAME: &'static str = "fault-leaky";

    fn received<T: Item>(message: &T) {
        KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message.body().to_vec());
    }
}

/// The fault of `fault-crash`: its receiver kills its whole process at its first message (SIGKILL,
/// as the out-of-memory killer would; no core file is written); the process measuring the round
/// dies, and the sweep goes on.
pub struct Crash;

impl Fault for Crash {
    const NAME: &'static str = "fault-crash";

    fn received<T: Item>(_message: &T) {
        // SAFETY: kill(2) on this process's own id.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        unreachable!("SIGKILL cannot be caught")
    }
}
