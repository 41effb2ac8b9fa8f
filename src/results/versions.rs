//! The crate versions beside an answer: tokio's, then those of the channels a results file
//! holds (by crate name), each as the run's JSON records it ([`Metadata::crates`]) or, where the JSON has none,
//! as this build's Cargo.lock holds it. Figures move across releases of both, so an answer is
//! read with the versions that made it.

use std::collections::BTreeSet;

use super::load::ResultsFile;
use super::metadata::Metadata;
use crate::registry::{self, RUNTIME_CRATE};

/// Where a crate's version was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The run's own JSON beside the CSV.
    Run,
    /// The Cargo.lock this binary was built from.
    Build,
}

/// One crate's version beside an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateVersion {
    /// The crate's name on the registry.
    pub crate_name: String,
    /// Its version (several joined by `, `, `unknown` when neither source has it).
    pub version: String,
    /// Where it was read.
    pub source: Source,
}

/// The versions beside an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// tokio first, then the file's channel crates by name.
    pub crates: Vec<CrateVersion>,
    /// Whether the run's JSON was there to read.
    pub has_json: bool,
}

/// The versions of tokio and of the crates of `file`'s channels, preferring `metadata` (the
/// run's JSON) over this build's. A channel the table does not hold (a user's own) is named by
/// its crate when the run's JSON records a crate that no channel of the table has.
pub fn versions(file: &ResultsFile, metadata: Option<&Metadata>) -> Versions {
    let mut names: BTreeSet<&str> =
        file.order.iter().filter_map(|key| registry::find(&key.channel)).map(|e| e.crate_name).collect();
    let own = |name: &&String| !registry::known().any(|entry| entry.crate_name == name.as_str());
    if file.order.iter().any(|key| registry::find(&key.channel).is_none()) {
        names.extend(metadata.iter().flat_map(|metadata| metadata.crates.keys().filter(own)).map(String::as_str));
    }
    names.remove(RUNTIME_CRATE);
    let crates = [RUNTIME_CRATE]
        .into_iter()
        .chain(names)
        .map(|crate_name| {
            let (version, source) = match metadata.and_then(|metadata| metadata.crates.get(crate_name)) {
                Some(version) => (version.clone(), Source::Run),
                None => (registry::locked_version(crate_name), Source::Build),
            };
            CrateVersion { crate_name: crate_name.to_owned(), version, source }
        })
        .collect();
    Versions { crates, has_json: metadata.is_some() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::hand_made;

    fn metadata(crates: &[(&str, &str)]) -> Metadata {
        Metadata {
            weigh: None,
            cpu_model: None,
            cores: 1,
            os: String::new(),
            hostname: None,
            rustc: String::new(),
            crates: crates.iter().map(|(name, version)| (name.to_string(), version.to_string())).collect(),
            git_commit: None,
            command_line: Vec::new(),
            started_utc: String::new(),
            setup: Default::default(),
            keep: Vec::new(),
            builds: Vec::new(),
        }
    }

    #[test]
    fn the_runs_json_wins_and_the_build_fills_what_it_lacks() {
        let file = hand_made(&[("kanal", 1, &[1.0], 0), ("tokio-mpsc", 1, &[1.0], 0), ("my-own", 1, &[1.0], 0)]);
        let json = metadata(&[("tokio", "0.0.1"), ("flume", "9.9.9")]);
        let found = versions(&file, Some(&json));
        let names: Vec<(&str, &str, Source)> =
            found.crates.iter().map(|c| (c.crate_name.as_str(), c.version.as_str(), c.source)).collect();
        let kanal = registry::locked_version("kanal");
        assert_eq!(names, [("tokio", "0.0.1", Source::Run), ("kanal", kanal.as_str(), Source::Build)]);
        assert!(found.has_json);
        let built = versions(&file, None);
        assert_eq!(built.crates[0].version, registry::locked_version("tokio"));
        assert!(built.crates.iter().all(|c| c.source == Source::Build) && !built.has_json);
    }

    #[test]
    fn a_channel_of_your_own_is_named_by_the_crate_the_runs_json_records_for_it() {
        let file = hand_made(&[("kanal", 1, &[1.0], 0), ("my-own", 1, &[1.0], 0)]);
        let json = metadata(&[("tokio", "1.0.0"), ("kanal", "0.1.1"), ("my-crate", "0.3.0")]);
        let names: Vec<(String, String)> =
            versions(&file, Some(&json)).crates.into_iter().map(|c| (c.crate_name, c.version)).collect();
        let pair = |name: &str, version: &str| (name.to_owned(), version.to_owned());
        assert_eq!(names, [pair("tokio", "1.0.0"), pair("kanal", "0.1.1"), pair("my-crate", "0.3.0")]);
        let only_known = hand_made(&[("kanal", 1, &[1.0], 0)]);
        assert_eq!(versions(&only_known, Some(&json)).crates.len(), 2, "no channel of your own, no crate of its");
    }
}
