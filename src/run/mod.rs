//! How one run is driven and timed: the [`workload`], the [`scenario`] written once over
//! [`crate::channel::Channel`], its [`payload`] sizes, [`latency`] stamps, [`sink`] and
//! [`allocs`] counts; [`measure`] times it, beside a [`reading`] of the machine's speed, and
//! [`verify`] says whether it delivered; [`memory`] counts the heap a channel keeps.

/// An enum of unit variants, each named as the command line and the CSV write it: the enum
/// itself (`clap::ValueEnum`, and serde as that name, with the usual derives), `ALL`, `name()`,
/// and `Display` as that name (padded to the width asked for).
macro_rules! named {
    ($(#[$meta:meta])* pub enum $kind:ident { $($(#[$doc:meta])* $variant:ident => $name:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum, serde::Serialize,
            serde::Deserialize,
        )]
        pub enum $kind {
            $($(#[$doc])* #[value(name = $name)] #[serde(rename = $name)] $variant),+
        }

        impl $kind {
            /// Every variant, in sweep order.
            pub const ALL: [$kind; [$($name),+].len()] = [$($kind::$variant),+];

            /// The name used on the command line and in the CSV.
            pub fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.name())
            }
        }
    };
}

/// `$run::<C, T>($arg)`, `T` the item that `$record` (a `workload::RecordBytes`) names: the shared
/// [`crate::channel::Message`], or a [`crate::channel::Record`] of that many bytes in all.
macro_rules! by_record {
    ($record:expr, $run:ident::<$channel:ident>($arg:expr)) => {{
        use $crate::channel::{Message, Record};
        use $crate::run::workload::RecordBytes;
        match $record {
            RecordBytes::Shared => $run::<$channel, Message>($arg),
            RecordBytes::B48 => $run::<$channel, Record<32>>($arg),
            RecordBytes::B256 => $run::<$channel, Record<240>>($arg),
            RecordBytes::B1200 => $run::<$channel, Record<1184>>($arg),
        }
    }};
}

// Each record above is as large as its `--record-bytes` says.
const _: () = assert!(size_of::<crate::channel::Record<32>>() == 48);
const _: () =
    assert!(size_of::<crate::channel::Record<240>>() == 256 && size_of::<crate::channel::Record<1184>>() == 1200);

pub mod allocs;
pub mod latency;
pub mod measure;
pub mod memory;
pub mod payload;
pub mod reading;
pub mod rounds;
pub mod scenario;
pub mod sink;
pub mod slow;
pub mod stop;
pub mod verify;
pub mod workload;
