//! Every caveat of the channel table checked against what can be checked here: the ones
//! marked reproduced are shown by a test in this file, and every caveat's version range holds
//! the version Cargo.lock pins, so an upgrade fails here until the caveat is read again.

use std::rc::Rc;

use channel_bench::registry::{CHANNELS, Evidence};

/// Compiles only for a `T` that is `Send`.
fn assert_send<T: Send>() {}

/// crossfire's receiver and sender of a channel of `Rc` (not `Send`) are `Send`: safe code
/// can hand each half to another thread and move `Rc` clones across through the channel. This
/// stops compiling when crossfire bounds its `unsafe impl Send` on the item type; then the
/// caveat goes. Nothing is sent: the hole is shown by the type check, not by a data race.
#[test]
fn crossfire_async_rx_and_tx_are_send_for_an_item_that_is_not() {
    type Flavor = crossfire::mpsc::Array<Rc<u32>>;
    assert_send::<crossfire::AsyncRx<Flavor>>();
    assert_send::<crossfire::MAsyncTx<Flavor>>();
    // A channel of them can be made, so the types are not only names.
    let (sender, receiver) = crossfire::mpsc::bounded_async::<Rc<u32>>(1);
    let (_sender, _receiver): (crossfire::MAsyncTx<Flavor>, crossfire::AsyncRx<Flavor>) = (sender, receiver);
}

/// `name = version` of every package in Cargo.lock as it is now (not as the binary was built).
fn locked() -> Vec<(String, String)> {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    let mut packages = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"').to_owned());
        } else if let (Some(value), Some(package)) = (line.strip_prefix("version = "), name.take()) {
            packages.push((package, value.trim_matches('"').to_owned()));
        }
    }
    packages
}

#[test]
fn every_caveat_covers_the_version_cargo_lock_pins() {
    let locked = locked();
    for channel in CHANNELS {
        let versions: Vec<&str> =
            locked.iter().filter(|(name, _)| name == channel.crate_name).map(|(_, version)| version.as_str()).collect();
        assert!(!versions.is_empty(), "{}: {} is not in Cargo.lock", channel.name, channel.crate_name);
        for caveat in channel.caveats {
            for version in &versions {
                assert_eq!(
                    caveat.applies_to(version),
                    Some(true),
                    "{} {version} is outside the caveat's range {:?} ({}): read {} again, then widen the range \
                     or drop the caveat",
                    channel.crate_name,
                    caveat.versions,
                    caveat.text,
                    caveat.link
                );
            }
        }
    }
}

#[test]
fn the_built_binary_reports_the_locked_version_of_each_channel() {
    let locked = locked();
    for channel in CHANNELS {
        let expected: Vec<&str> =
            locked.iter().filter(|(name, _)| name == channel.crate_name).map(|(_, version)| version.as_str()).collect();
        assert_eq!(channel.version(), expected.join(", "), "{}", channel.name);
    }
}

#[test]
fn every_caveat_is_sourced_and_a_reproduced_one_names_a_test_here() {
    let this_file = include_str!("caveats.rs");
    for channel in CHANNELS {
        for caveat in channel.caveats {
            assert!(caveat.link.starts_with("https://"), "{}: {:?} has no source", channel.name, caveat.text);
            if let Evidence::Reproduced { test } = caveat.evidence {
                let function = test.strip_prefix("tests/caveats.rs::").unwrap_or_else(|| panic!("{test}: not here"));
                assert!(this_file.contains(&format!("fn {function}()")), "{test}: no such test");
            }
        }
    }
}
