use super::*;

#[test]
fn steal_is_the_eighth_number_of_the_cpu_line() {
    let stat = "cpu  10 20 30 40 50 60 70 88 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
    assert_eq!(parse_steal_ticks(stat), Some(88));
    assert_eq!(parse_steal_ticks("cpu0 1 2 3 4 5 6 7 8\n"), None);
    assert_eq!(parse_steal_ticks("cpu  1 2 3\n"), None);
}

#[test]
fn run_delay_is_the_second_number_of_schedstat() {
    assert_eq!(parse_run_delay("551620367 15302031 215\n"), Some(15302031));
    assert_eq!(parse_run_delay("551620367\n"), None);
    assert_eq!(parse_run_delay(""), None);
}

#[test]
fn a_sample_stopped_at_its_bound_counts_and_checks_what_it_took() {
    use crate::run::workload::Mode;
    let channel = crate::registry::find("kanal").unwrap();
    let messages = 1 << 24;
    let job = Job {
        channel: channel.name.to_owned(),
        prepare: Some(channel.prepare),
        runtime: RuntimeKind::CurrentThread,
        workers: 1,
        workload: Workload::new(Mode::ClonedSend, 4, messages, 64),
        warmups: 0,
        bound: Some(Bound { cut: 1.0, floor: Duration::ZERO, fastest: Some(Duration::from_millis(20)) }),
        slowed: 0.0,
    };
    let watchdog = Watchdog::new(Duration::from_secs(120), Arc::new(AtomicBool::new(false))).unwrap();
    let sample = guarded_sample(&job, &watchdog).unwrap().unwrap();
    let bounded = sample.bounded.expect("16 Mi messages take longer than 20 ms");
    assert!(sample.status.is_ok(), "{}", sample.status);
    assert_eq!(bounded.bound, Duration::from_millis(20));
    assert!(bounded.taken > 0 && bounded.taken < messages, "{bounded:?}");
    assert_eq!(sample.delivered(messages), bounded.taken);
    assert_eq!(sample.bytes, bounded.taken * crate::run::payload::DEFAULT_PAYLOAD_BYTES as u64);
    assert!(sample.reading.is_some_and(|reading| reading.loop_ns > 0.0), "read before the sample");
}

#[test]
fn usage_counts_forward() {
    let (first, second) = (usage().unwrap(), usage().unwrap());
    assert!(second.0 >= first.0 && second.1 >= first.1);
}
