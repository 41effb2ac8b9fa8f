use super::*;
use crate::results::column::Column;
use crate::results::schema::SampleStatus;
use crate::run::payload::DEFAULT_PAYLOAD_BYTES;
use crate::run::sink::Sink;

#[test]
fn samples_measured_in_a_disturbed_stretch_are_left_out_of_every_list() {
    // Five passes over 20 multi-thread and 20 current-thread cells, interleaved; in the
    // third pass every multi-thread sample is 2.2 times slower.
    let mut rows = Vec::new();
    for pass in 0..5 {
        for at in 0..40u64 {
            let cell = (at * 7 + pass * 2) % 40;
            let runtime = if cell % 2 == 0 { RuntimeKind::MultiThread } else { RuntimeKind::CurrentThread };
            let slow = if pass == 2 && runtime == RuntimeKind::MultiThread { 2.2 } else { 1.0 };
            let ns_per_message = (20.0 + cell as f64) * slow;
            rows.push(Record {
                channel: format!("c{cell}"),
                runtime,
                tasks: 1,
                messages: 1000,
                ns_per_message,
                elapsed_ns: (ns_per_message * 1000.0) as u64,
                cpu_ns: Some((ns_per_message * 2000.0) as u64),
                status: SampleStatus::Ok,
                payload: DEFAULT_PAYLOAD_BYTES.to_string(),
                sink: Sink::None.kind().into(),
                ..Record::default()
            });
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    for row in &rows {
        writer.serialize(row).unwrap();
    }
    writer.flush().unwrap();
    let file = load(&path).unwrap();
    let (mut multi, mut current) = (0, 0);
    for (key, cell) in &file.cells {
        assert_eq!(cell.ok.len() + cell.disturbed.len(), 5, "{key:?}");
        assert_eq!(cell.columns[Column::CpuNsPerMessage].len(), cell.ok.len(), "the other lists leave them out too");
        match key.coord.runtime {
            RuntimeKind::MultiThread => multi += cell.disturbed.len(),
            RuntimeKind::CurrentThread => current += cell.disturbed.len(),
        }
    }
    assert_eq!(current, 0, "the current-thread samples were not slow");
    assert!((15..=30).contains(&multi), "the 20 slow multi-thread samples, give or take the stretch's edges: {multi}");
}

#[test]
fn a_pacer_that_fell_behind_with_half_its_round_is_the_hosts_and_left_out() {
    let paced = |channel: &str, round: u64, behind: bool| Record {
        channel: channel.into(),
        status: SampleStatus::Ok,
        tasks: 300,
        messages: 1000,
        pace_ns: Some(20_000_000),
        burst: Some(5),
        frames: Some(200),
        frames_overflowed: Some(0),
        pacer_behind: Some(behind),
        round: Some(round),
        ..Record::default()
    };
    let rows = vec![
        // Round 1: one of three fell behind, alone: its channel's.
        paced("flume", 1, true),
        paced("kanal", 1, false),
        paced("tokio-mpsc", 1, false),
        // Round 2: two of three fell behind: the host's.
        paced("flume", 2, true),
        paced("kanal", 2, true),
        paced("tokio-mpsc", 2, false),
    ];
    let file = file_of(rows, false, Rounds::Own);
    let cell = |channel: &str| &file.cells[file.order.iter().find(|key| key.channel == channel).unwrap()];
    assert_eq!(cell("flume").paced.len(), 1, "round 1's sample stays, behind");
    assert!(cell("flume").paced[0].pacer_behind);
    assert_eq!(cell("kanal").paced.len(), 1, "round 2's sample is the host's");
    assert_eq!(cell("kanal").disturbed.len(), 1);
    assert_eq!(cell("tokio-mpsc").paced.len(), 2);
}
