//! A channel as data ([`ChannelId`]: its name and its merge) and as reports name it
//! ([`channel_label`]), below the files that load cells and their memory.

use crate::run::workload::Merge;

/// A channel as every report names it: the name, then ` via MERGE` when merged-recv merged
/// its receivers another way than the default (`kanal via select-all`). For display only:
/// the channel and the merge stay apart everywhere else.
pub fn channel_label(channel: &str, merge: Option<Merge>) -> String {
    match merge.filter(|merge| *merge != Merge::default()) {
        Some(merge) => format!("{channel} via {merge}"),
        None => channel.to_owned(),
    }
}

/// A channel as data: its name (as in `--list-channels`) and how merged-recv merged its
/// receivers (`None` in cloned-send). Displayed as [`channel_label`] writes it; serialized as
/// data, `channel` and `merge` (absent in cloned-send).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChannelId {
    /// The channel's name.
    #[serde(rename = "channel")]
    pub name: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<Merge>,
}

impl ChannelId {
    /// The channel `name` merged by `merge`.
    pub fn of((name, merge): (&str, Option<Merge>)) -> ChannelId {
        ChannelId { name: name.to_owned(), merge }
    }

    /// Whether `name`, a channel the user named (`--keep`), is this one: its name, at the
    /// default merge.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name && self.merge.is_none_or(|merge| merge == Merge::default())
    }
}

impl std::fmt::Display for ChannelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&channel_label(&self.name, self.merge))
    }
}
