//! Every channel in the table, driven through the real scenarios on small inputs.

use channel_bench::channel::adapters::{
    AsyncChannel, Asyncband, BatchChannel, Crossfire, Fibre, Flume, FuturesChannel, Kanal, Loole, Rapidfire, Tachyonix,
    Thingbuf, TokioMpsc, TokioRecvMany,
};
use channel_bench::channel::{Channel, Item, Message, Record};
use channel_bench::registry::CHANNELS;
use channel_bench::run::measure::{self, RuntimeKind};
use channel_bench::run::payload::PayloadSize;
use channel_bench::run::verify::Status;
use channel_bench::run::workload::{Mode, RecordBytes, Workload};

#[test]
fn every_channel_mode_runtime_and_task_count_delivers_everything_in_order() {
    for runtime_kind in RuntimeKind::ALL {
        let runtime = runtime_kind.build(2, false).expect("runtime starts");
        for channel in CHANNELS {
            for mode in Mode::ALL {
                for tasks in [1, 3, 64] {
                    // 3001 does not divide by 64 or 3: some tasks send one message more.
                    let workload =
                        Workload { payload: PayloadSize::Fixed(16), ..Workload::new(mode, tasks, 3001, 128) };
                    let sample = measure::sample(&runtime, channel.prepare, &workload);
                    assert_eq!(
                        sample.status,
                        Status::Ok,
                        "{} {} {} tasks={tasks}",
                        runtime_kind.name(),
                        mode.name(),
                        channel.name
                    );
                    assert!(sample.elapsed > std::time::Duration::ZERO);
                }
            }
        }
    }
}

#[test]
fn every_channel_delivers_everything_in_order_at_a_batch_of_64() {
    for runtime_kind in RuntimeKind::ALL {
        let runtime = runtime_kind.build(2, false).expect("runtime starts");
        for channel in CHANNELS {
            for mode in Mode::ALL {
                for tasks in [1, 3, 64] {
                    let workload = Workload {
                        payload: PayloadSize::Fixed(16),
                        batch: 64,
                        ..Workload::new(mode, tasks, 3001, 128)
                    };
                    let sample = measure::sample(&runtime, channel.prepare, &workload);
                    let cell = format!("{} {} {} tasks={tasks}", runtime_kind.name(), mode.name(), channel.name);
                    assert_eq!(sample.status, Status::Ok, "{cell}");
                    assert_eq!(sample.delivered(workload.messages), 3001, "{cell}");
                }
            }
        }
    }
}

#[test]
fn the_work_per_batch_is_spun_inside_the_clock_once_a_batch() {
    let runtime = RuntimeKind::CurrentThread.build(1, false).expect("runtime starts");
    let work = std::time::Duration::from_micros(200);
    for (batch, mode) in [(1, Mode::ClonedSend), (64, Mode::MergedRecv)] {
        let workload = Workload { batch, work_per_batch: Some(work), ..Workload::new(mode, 2, 100, 128) };
        let sample = measure::sample(&runtime, CHANNELS[0].prepare, &workload);
        assert_eq!(sample.status, Status::Ok);
        // At least one batch, and at a batch of 1 one batch a message: never less than its work.
        let least = if batch == 1 { work * 100 } else { work };
        assert!(sample.elapsed >= least, "batch {batch}: {:?} under {least:?}", sample.elapsed);
    }
}

#[test]
fn every_channel_holds_exactly_its_capacity() {
    // (capacity, senders): one sender as in merged-recv, many as in cloned-send,
    // and as many senders as slots (the least futures-channel can do).
    let shapes = [(1, 1), (5, 1), (128, 1), (16, 4), (100, 7), (64, 64), (1024, 512)];
    for channel in CHANNELS {
        for (capacity, senders) in shapes {
            let accepted = (channel.probe_capacity)(capacity, senders);
            assert_eq!(accepted, capacity, "{} with capacity {capacity} and {senders} senders", channel.name);
        }
    }
}

#[test]
fn the_split_moves_exactly_the_requested_messages() {
    for (messages, tasks) in [(3001, 64), (10, 3), (7, 7), (1 << 20, 512)] {
        let workload =
            Workload { payload: PayloadSize::Fixed(0), ..Workload::new(Mode::ClonedSend, tasks, messages, 64) };
        let per_task: Vec<u64> = (0..tasks).map(|task| u64::from(workload.messages_for(task))).collect();
        assert_eq!(per_task.iter().sum::<u64>(), messages);
        let (most, fewest) = (per_task.iter().max().unwrap(), per_task.iter().min().unwrap());
        assert!(most - fewest <= 1, "{messages} over {tasks}: {most} vs {fewest}");
        // The first `messages % tasks` tasks carry the extra one.
        assert!(per_task.windows(2).all(|pair| pair[0] >= pair[1]));
    }
}

#[test]
fn merged_recv_splits_the_capacity_across_channels() {
    let workload = Workload { payload: PayloadSize::Fixed(0), ..Workload::new(Mode::MergedRecv, 64, 1000, 65536) };
    assert_eq!(workload.capacity_per_channel(), 1024);
    assert_eq!(workload.senders_per_channel(), 1);
    let cloned = Workload { mode: Mode::ClonedSend, ..workload };
    assert_eq!(cloned.capacity_per_channel(), 65536);
    assert_eq!(cloned.senders_per_channel(), 64);
}

#[test]
fn a_warm_up_is_the_same_workload_cut_short() {
    let workload =
        Workload { payload: PayloadSize::Fixed(1200), ..Workload::new(Mode::MergedRecv, 512, 1 << 20, 1 << 16) };
    let warm_up = workload.warm_up();
    assert_eq!(warm_up.messages, channel_bench::run::workload::WARMUP_MESSAGES);
    assert_eq!(Workload { messages: workload.messages, ..warm_up.clone() }, workload);
    // Never fewer messages than tasks, never more than the samples move.
    let many_tasks = Workload { tasks: 100_000, messages: 200_000, ..workload.clone() };
    assert_eq!(many_tasks.warm_up().messages, 100_000);
    let small = Workload { messages: 600, ..workload };
    assert_eq!(small.warm_up().messages, 600);
}

#[test]
fn every_channel_has_its_own_name_and_a_locked_crate() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    for (at, channel) in CHANNELS.iter().enumerate() {
        assert!(CHANNELS[..at].iter().all(|earlier| earlier.name != channel.name), "{} twice", channel.name);
        let package = format!("name = \"{}\"\n", channel.crate_name);
        assert!(lock.contains(&package), "{}: crate {} is not in Cargo.lock", channel.name, channel.crate_name);
    }
}

#[test]
fn every_channel_delivers_records_by_value_intact_and_counts_their_bodies() {
    for runtime_kind in RuntimeKind::ALL {
        let runtime = runtime_kind.build(2, false).expect("runtime starts");
        for channel in CHANNELS {
            for mode in Mode::ALL {
                for (record, batch) in [(RecordBytes::B1200, 1), (RecordBytes::B48, 64)] {
                    let workload = Workload { record, batch, ..Workload::new(mode, 3, 3001, 128) };
                    let sample = measure::sample(&runtime, channel.prepare, &workload);
                    let cell =
                        format!("{} {} {} {record} batch {batch}", runtime_kind.name(), mode.name(), channel.name);
                    assert_eq!(sample.status, Status::Ok, "{cell}");
                    let body = u64::from(record.by_value().unwrap()) - 16;
                    assert_eq!(sample.bytes, 3001 * body, "{cell}: the bytes are the records' bodies");
                }
            }
        }
    }
}

/// Ten messages queued, taken in batches of at most four: each batch holds what was queued, in
/// order, never more than the limit; more than one where the channel batches at all; then, the
/// sender gone, `false`.
fn takes_what_is_queued_up_to_the_limit<C: Channel>() {
    futures::executor::block_on(async {
        let (mut sender, mut receiver) = C::bounded(16, 1);
        for seq in 0..10 {
            C::send(&mut sender, Message { seq, ..Message::default() }).await.unwrap();
        }
        drop(sender);
        let (mut taken, mut batch) = (Vec::new(), Vec::new());
        while C::recv_batch(&mut receiver, &mut batch, 4).await {
            assert!((1..=4).contains(&batch.len()), "{}: a batch of {}", C::NAME, batch.len());
            taken.push(batch.drain(..).map(|message| message.seq).collect::<Vec<_>>());
        }
        assert_eq!(taken.concat(), (0..10).collect::<Vec<_>>(), "{}", C::NAME);
        assert!(taken.len() < 10, "{} took one message a batch: {taken:?}", C::NAME);
    });
}

#[test]
fn every_adapter_takes_a_batch_of_what_is_queued() {
    takes_what_is_queued_up_to_the_limit::<TokioMpsc>();
    takes_what_is_queued_up_to_the_limit::<Flume>();
    takes_what_is_queued_up_to_the_limit::<AsyncChannel>();
    takes_what_is_queued_up_to_the_limit::<FuturesChannel>();
    takes_what_is_queued_up_to_the_limit::<Kanal>();
    takes_what_is_queued_up_to_the_limit::<Thingbuf>();
    takes_what_is_queued_up_to_the_limit::<Tachyonix>();
    takes_what_is_queued_up_to_the_limit::<Crossfire>();
    takes_what_is_queued_up_to_the_limit::<TokioRecvMany>();
    takes_what_is_queued_up_to_the_limit::<Loole>();
    takes_what_is_queued_up_to_the_limit::<Rapidfire>();
    takes_what_is_queued_up_to_the_limit::<Asyncband>();
    takes_what_is_queued_up_to_the_limit::<Fibre>();
    takes_what_is_queued_up_to_the_limit::<BatchChannel>();
}

/// Ten 1,200-byte records sent by value and received: each intact, in order, then `None`.
fn moves_records_by_value<C: Channel>() {
    futures::executor::block_on(async {
        let (mut sender, mut receiver) = C::bounded::<Record<1184>>(16, 1);
        for seq in 0..10 {
            C::send(&mut sender, Record::<1184>::stamp(0, seq, 0, || unreachable!("a record has no payload")))
                .await
                .unwrap();
        }
        drop(sender);
        let mut taken = Vec::new();
        while let Some(record) = C::recv(&mut receiver).await {
            assert!(record.intact(), "{}: record {} arrived torn", C::NAME, record.seq);
            taken.push(record.seq);
        }
        assert_eq!(taken, (0..10).collect::<Vec<_>>(), "{}", C::NAME);
    });
}

#[test]
fn every_adapter_moves_records_by_value() {
    moves_records_by_value::<TokioMpsc>();
    moves_records_by_value::<Flume>();
    moves_records_by_value::<AsyncChannel>();
    moves_records_by_value::<FuturesChannel>();
    moves_records_by_value::<Kanal>();
    moves_records_by_value::<Thingbuf>();
    moves_records_by_value::<Tachyonix>();
    moves_records_by_value::<Crossfire>();
    moves_records_by_value::<TokioRecvMany>();
    moves_records_by_value::<Loole>();
    moves_records_by_value::<Rapidfire>();
    moves_records_by_value::<Asyncband>();
    moves_records_by_value::<Fibre>();
    moves_records_by_value::<BatchChannel>();
}

#[test]
fn a_record_whose_body_ends_differ_from_its_seq_is_torn() {
    let record = Record::<32>::stamp(3, 258, 0, || unreachable!("a record has no payload"));
    assert!(record.intact());
    assert!(record.body.iter().all(|&byte| byte == 2), "every byte is the seq's low byte");
    let mut torn = record.clone();
    torn.body[31] = 0;
    assert!(!torn.intact());
    let mut torn = record;
    torn.body[0] = 0;
    assert!(!torn.intact());
}
