//! The JSON beside each CSV: the machine and build a run happened on.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::paths::{self, Existing, OpenError, Refused};

/// The machine and build a run happened on, written as JSON beside the CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// Available parallelism (cores the process may use).
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
    /// Host name.
    pub hostname: Option<String>,
    /// `rustc --version` of the compiler that built the binary.
    pub rustc: String,
    /// Version of every channel crate and of tokio, from Cargo.lock at build time.
    pub crates: std::collections::BTreeMap<String, String>,
    /// Git commit the binary was built from (`-dirty` if it had uncommitted changes).
    pub git_commit: Option<String>,
    /// The command line, program name first.
    pub command_line: Vec<String>,
    /// When the sweep started, RFC 3339 UTC.
    pub started_utc: String,
    /// Each channel crate's setup as its docs advise for the host (`Channel::SETUP`), or `none
    /// advised`; empty in files older than it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub setup: std::collections::BTreeMap<String, String>,
    /// The channels the run kept (`--keep`): the user's own, whose verdict against each band's
    /// pick the answer gives; empty when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep: Vec<String>,
    /// The figures the room's decision weighed, in order (`--weigh`), when the run was told;
    /// absent when it weighed the default order (`results::weigh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weigh: Option<super::weigh::Weighing>,
    /// The two builds of a paired A/B run (`ab`), baseline first; empty in every other run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<Build>,
}

/// One build of a paired A/B run, as it describes itself (`take-round --protocol`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    /// `baseline` or `candidate`: the value of the CSV's `build` column for its rows.
    pub role: String,
    /// The binary's path.
    pub path: String,
    /// Environment variables set for its processes only, `KEY=VALUE`.
    pub env: Vec<String>,
    /// The take-round protocol it speaks.
    pub protocol: u32,
    /// Its channel-bench version.
    pub version: String,
    /// The git commit it was built from, when known.
    pub git_commit: Option<String>,
    /// Version of every channel crate it holds and of tokio, from its Cargo.lock.
    pub crates: std::collections::BTreeMap<String, String>,
    /// The channels it can measure, by name.
    #[serde(default)]
    pub channels: Vec<String>,
}

/// Which machine a run measured, as the answer names it: its cores and CPU model, from the
/// JSON beside its CSV. Runs of one machine pool; runs of several are an axis of the answer,
/// as capacity is. The default is a run without a readable JSON: an unknown machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MachineId {
    /// Available parallelism (`Metadata::cores`); 0 when unknown.
    pub cores: usize,
    /// CPU model name (`Metadata::cpu_model`); empty when unknown.
    pub cpu: String,
}

impl MachineId {
    /// The machine `metadata` describes; the unknown machine without one.
    pub fn of(metadata: Option<&Metadata>) -> MachineId {
        metadata.map_or_else(MachineId::default, |metadata| MachineId {
            cores: metadata.cores,
            cpu: metadata.cpu_model.clone().unwrap_or_default(),
        })
    }

    /// `16 cores`, `1 core`: the machine by its cores alone, where they tell it apart.
    fn cores_text(&self) -> String {
        if self.cores == 1 { "1 core".to_owned() } else { format!("{} cores", self.cores) }
    }

    /// The machine by its cores alone when `by_cores` (`16 cores`), in full otherwise.
    pub fn named(&self, by_cores: bool) -> String {
        if by_cores { self.cores_text() } else { self.to_string() }
    }
}

impl std::fmt::Display for MachineId {
    /// `16 cores (Intel(R) Xeon(R) Processor)`; `a machine without a JSON beside its CSV`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.cores, self.cpu.as_str()) {
            (0, _) => f.write_str("a machine without a JSON beside its CSV"),
            (_, "") => f.write_str(&self.cores_text()),
            (_, cpu) => write!(f, "{} ({cpu})", self.cores_text()),
        }
    }
}

impl Metadata {
    /// Writes the JSON to `path`: a new file, or a regular file emptied in place (never
    /// anything else, never deleted first).
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let json = serde_json::to_string_pretty(self).expect("plain data serializes");
        let mut file = match paths::open(path, Existing::Truncate) {
            Ok(file) => file,
            Err(OpenError::Io(error)) => return Err(error).with_context(|| format!("cannot write {}", path.display())),
            Err(why) => return Err(Refused::new(path.display().to_string(), why).into()),
        };
        file.write_all((json + "\n").as_bytes()).with_context(|| format!("cannot write {}", path.display()))
    }

    /// Reads the JSON at `path`.
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not a channel-bench JSON", path.display()))
    }
}
