//! Payload sizes: one fixed size, or sizes drawn per message from a seeded generator.
//! Every buffer is made before the clock starts; inside it a message's payload is a slice
//! of its task's buffer, a reference-count bump.

use std::fmt;
use std::str::FromStr;

use bytes::Bytes;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// What `--payload` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PayloadSize {
    /// Every message carries this many bytes.
    Fixed(usize),
    /// Each message's size is drawn uniformly from `min..=max`.
    Uniform {
        /// Smallest size.
        min: usize,
        /// Largest size, inclusive.
        max: usize,
    },
}

impl PayloadSize {
    /// The largest payload a message can carry.
    pub fn max(self) -> usize {
        match self {
            PayloadSize::Fixed(size) => size,
            PayloadSize::Uniform { max, .. } => max,
        }
    }

    /// Whether sizes vary from message to message.
    pub fn varies(self) -> bool {
        matches!(self, PayloadSize::Uniform { .. })
    }
}

/// Payload bytes per message unless `--payload` says otherwise: about an RTP packet.
pub const DEFAULT_PAYLOAD_BYTES: usize = 1200;

impl fmt::Display for PayloadSize {
    /// `1200` or `300..2000`, as `--payload` takes it and the CSV writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadSize::Fixed(size) => write!(f, "{size}"),
            PayloadSize::Uniform { min, max } => write!(f, "{min}..{max}"),
        }
    }
}

impl FromStr for PayloadSize {
    type Err = String;

    /// `BYTES`, or `MIN..MAX` (both ends included; `MIN..=MAX` is read the same).
    fn from_str(text: &str) -> Result<Self, String> {
        let bytes = |part: &str| {
            part.trim().parse::<usize>().map_err(|_| format!("{part:?} is not a byte count: write BYTES or MIN..MAX"))
        };
        let Some((min, max)) = text.split_once("..") else {
            return Ok(PayloadSize::Fixed(bytes(text)?));
        };
        let (min, max) = (bytes(min)?, bytes(max.strip_prefix('=').unwrap_or(max))?);
        match min.cmp(&max) {
            std::cmp::Ordering::Less => Ok(PayloadSize::Uniform { min, max }),
            std::cmp::Ordering::Equal => Ok(PayloadSize::Fixed(min)),
            std::cmp::Ordering::Greater => Err(format!("{min}..{max} is empty: write the smaller size first")),
        }
    }
}

/// The payloads of one sending task: its `seq`-th message carries [`TaskPayloads::get`]`(seq)`.
#[derive(Debug, Clone)]
pub enum TaskPayloads {
    /// One buffer, cloned for every message.
    Fixed(Bytes),
    /// One buffer of the largest size and each message's length, drawn before the clock starts.
    Varied {
        /// The buffer every payload is a prefix of.
        buffer: Bytes,
        /// Length of message `seq`'s payload.
        sizes: Vec<u32>,
    },
}

impl TaskPayloads {
    /// The payloads of task `task`, which sends `count` messages, under `size` and `seed`.
    pub fn new(size: PayloadSize, seed: u64, task: u32, count: u32) -> Self {
        let buffer = Bytes::from(vec![0xA5; size.max()]);
        // The first clone of a Vec-backed Bytes allocates its shared header; do it now,
        // so every clone inside the clock is a plain reference-count bump.
        drop(buffer.clone());
        match size {
            PayloadSize::Fixed(_) => TaskPayloads::Fixed(buffer),
            PayloadSize::Uniform { min, max } => {
                TaskPayloads::Varied { buffer, sizes: sizes(min, max, seed, task, count) }
            }
        }
    }

    /// The payload of message `seq`.
    #[inline(always)]
    pub fn get(&self, seq: u32) -> Bytes {
        match self {
            TaskPayloads::Fixed(buffer) => buffer.clone(),
            TaskPayloads::Varied { buffer, sizes } => buffer.slice(..sizes[seq as usize] as usize),
        }
    }

    /// Bytes of all `count` payloads together.
    pub fn total(&self, count: u32) -> u64 {
        match self {
            TaskPayloads::Fixed(buffer) => buffer.len() as u64 * u64::from(count),
            TaskPayloads::Varied { sizes, .. } => sizes.iter().map(|&size| u64::from(size)).sum(),
        }
    }
}

/// The payload sizes of task `task`'s `count` messages, drawn uniformly from `min..=max` by a PCG
/// generator seeded with `seed` and the task number, so every channel and every sample of a sweep
/// moves the very same sizes.
pub fn sizes(min: usize, max: usize, seed: u64, task: u32, count: u32) -> Vec<u32> {
    // Spread the task numbers over the seed space so neighbouring tasks do not share streams.
    let mut generator = Pcg64Mcg::seed_from_u64(seed ^ u64::from(task).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..count).map(|_| generator.random_range(min as u32..=max as u32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print_as_the_flag_takes_them() {
        assert_eq!("1200".parse(), Ok(PayloadSize::Fixed(1200)));
        assert_eq!("300..2000".parse(), Ok(PayloadSize::Uniform { min: 300, max: 2000 }));
        assert_eq!("300..=2000".parse(), Ok(PayloadSize::Uniform { min: 300, max: 2000 }));
        assert_eq!("64..64".parse(), Ok(PayloadSize::Fixed(64)));
        assert_eq!(PayloadSize::Uniform { min: 300, max: 2000 }.to_string(), "300..2000");
        for bad in ["", "x", "2000..300", "-1", "1..", "..5"] {
            assert!(bad.parse::<PayloadSize>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn drawn_sizes_stay_in_range_cover_it_and_repeat_for_the_same_seed() {
        let drawn = sizes(300, 2000, 7, 3, 20_000);
        assert!(drawn.iter().all(|&s| (300..=2000).contains(&s)));
        assert_eq!(drawn.iter().min(), Some(&300));
        assert_eq!(drawn.iter().max(), Some(&2000));
        let mean = drawn.iter().map(|&s| f64::from(s)).sum::<f64>() / drawn.len() as f64;
        assert!((mean - 1150.0).abs() < 15.0, "mean {mean}");
        assert_eq!(drawn, sizes(300, 2000, 7, 3, 20_000));
        assert_ne!(drawn, sizes(300, 2000, 8, 3, 20_000));
        assert_ne!(drawn, sizes(300, 2000, 7, 4, 20_000));
    }

    #[test]
    fn each_message_carries_its_drawn_size_and_the_total_adds_up() {
        let size = PayloadSize::Uniform { min: 10, max: 50 };
        let payloads = TaskPayloads::new(size, 1, 0, 100);
        let drawn = sizes(10, 50, 1, 0, 100);
        let carried: Vec<u32> = (0..100).map(|seq| payloads.get(seq).len() as u32).collect();
        assert_eq!(carried, drawn);
        assert_eq!(payloads.total(100), drawn.iter().map(|&s| u64::from(s)).sum::<u64>());
        assert_eq!(TaskPayloads::new(PayloadSize::Fixed(1200), 1, 0, 5).total(5), 6000);
    }
}
