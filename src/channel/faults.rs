//! Channels that misbehave on purpose, so the tests can prove the harness catches it.
//! Built only with the cargo feature `faults`; a normal build neither has nor lists them.

use futures::Stream;

use super::adapters::TokioMpsc;
use super::{Channel, Closed, Message, TrySendError};

/// A tokio channel whose receiver never takes a message and is never woken: every sample hangs.
pub struct Hang;

impl Channel for Hang {
    const NAME: &'static str = "fault-hang";
    const CRATE: &'static str = "tokio";
    type Sender = <TokioMpsc as Channel>::Sender;
    type Receiver = <TokioMpsc as Channel>::Receiver;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        TokioMpsc::bounded(capacity, senders)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        TokioMpsc::send(sender, message).await
    }
    fn try_send(sender: &mut Self::Sender, message: Message) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv(_receiver: &mut Self::Receiver) -> Option<Message> {
        std::future::pending().await
    }
    fn stream(_receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        futures::stream::pending()
    }
}

/// Every sender's messages number `LOSS_EVERY`, 2·`LOSS_EVERY`, … (seq 99, 199, … ) vanish.
pub const LOSS_EVERY: u32 = 100;

/// A tokio channel that silently drops one message in every [`LOSS_EVERY`] of each sender.
pub struct Lossy;

impl Channel for Lossy {
    const NAME: &'static str = "fault-lossy";
    const CRATE: &'static str = "tokio";
    type Sender = <TokioMpsc as Channel>::Sender;
    type Receiver = <TokioMpsc as Channel>::Receiver;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        TokioMpsc::bounded(capacity, senders)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        if (message.seq + 1).is_multiple_of(LOSS_EVERY) {
            return Ok(());
        }
        TokioMpsc::send(sender, message).await
    }
    fn try_send(sender: &mut Self::Sender, message: Message) -> Result<(), TrySendError> {
        if (message.seq + 1).is_multiple_of(LOSS_EVERY) {
            return Ok(());
        }
        TokioMpsc::try_send(sender, message)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        TokioMpsc::recv(receiver).await
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        TokioMpsc::stream(receiver)
    }
}

/// A tokio channel whose receiver swaps every two consecutive messages: nothing is lost,
/// but with one sender its sequence arrives 1, 0, 3, 2, …
pub struct Reorder;

/// [`Reorder`]'s receiver: tokio's, and the message it holds back.
#[derive(Debug)]
pub struct ReorderReceiver {
    receiver: <TokioMpsc as Channel>::Receiver,
    held: Option<Message>,
}

impl Channel for Reorder {
    const NAME: &'static str = "fault-reorder";
    const CRATE: &'static str = "tokio";
    type Sender = <TokioMpsc as Channel>::Sender;
    type Receiver = ReorderReceiver;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        let (sender, receiver) = TokioMpsc::bounded(capacity, senders);
        (sender, ReorderReceiver { receiver, held: None })
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        TokioMpsc::send(sender, message).await
    }
    fn try_send(sender: &mut Self::Sender, message: Message) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
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
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        futures::stream::unfold(receiver, |receiver| async move {
            Self::recv(receiver).await.map(|message| (message, receiver))
        })
    }
}

/// Every payload [`Leaky`] delivered, copied and never freed.
static KEPT: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

/// A tokio channel that keeps a copy of every payload it delivers, for the life of the
/// process: its memory grows with the messages moved, as a channel with a growing queue would.
pub struct Leaky;

impl Leaky {
    fn keep(message: Message) -> Message {
        KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message.payload.to_vec());
        message
    }
}

impl Channel for Leaky {
    const NAME: &'static str = "fault-leaky";
    const CRATE: &'static str = "tokio";
    type Sender = <TokioMpsc as Channel>::Sender;
    type Receiver = <TokioMpsc as Channel>::Receiver;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        TokioMpsc::bounded(capacity, senders)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        TokioMpsc::send(sender, message).await
    }
    fn try_send(sender: &mut Self::Sender, message: Message) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        TokioMpsc::recv(receiver).await.map(Self::keep)
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        futures::StreamExt::map(TokioMpsc::stream(receiver), Self::keep)
    }
}

/// A tokio channel whose receiver kills its whole process at its first message (SIGKILL, as
/// the out-of-memory killer would; no core file is written): the process measuring the round
/// dies, and the sweep goes on.
pub struct Crash;

impl Crash {
    fn kill_own_process(_message: Message) -> Message {
        // SAFETY: kill(2) on this process's own id.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        unreachable!("SIGKILL cannot be caught")
    }
}

impl Channel for Crash {
    const NAME: &'static str = "fault-crash";
    const CRATE: &'static str = "tokio";
    type Sender = <TokioMpsc as Channel>::Sender;
    type Receiver = <TokioMpsc as Channel>::Receiver;

    fn bounded(capacity: usize, senders: usize) -> (Self::Sender, Self::Receiver) {
        TokioMpsc::bounded(capacity, senders)
    }
    async fn send(sender: &mut Self::Sender, message: Message) -> Result<(), Closed> {
        TokioMpsc::send(sender, message).await
    }
    fn try_send(sender: &mut Self::Sender, message: Message) -> Result<(), TrySendError> {
        TokioMpsc::try_send(sender, message)
    }
    async fn recv(receiver: &mut Self::Receiver) -> Option<Message> {
        TokioMpsc::recv(receiver).await.map(Self::kill_own_process)
    }
    fn stream(receiver: &mut Self::Receiver) -> impl Stream<Item = Message> + Send + '_ {
        futures::StreamExt::map(TokioMpsc::stream(receiver), Self::kill_own_process)
    }
}
