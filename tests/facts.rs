//! Facts the docs state that the committed files decide: the toolchain the locked crates need,
//! the reference run's machine and figures, the source files the docs name. Each test reads
//! the committed file that owns the fact and fails when a doc says otherwise.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;

/// The repository root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|error| panic!("{relative}: {error}"))
}

/// `text` with every run of whitespace (line breaks included) made one space, so a phrase
/// wrapped over two lines of Markdown is found.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// README.md and every Markdown file under docs/.
fn docs() -> Vec<(String, String)> {
    let mut found = vec![("README.md".to_string(), read("README.md"))];
    let mut folders = vec![root().join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "md") {
                let name = path.strip_prefix(root()).unwrap().display().to_string();
                found.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    found
}

/// `1.89` or `1.89.0` as (1, 89, 0).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|part| part.parse::<u64>().unwrap_or_else(|_| panic!("version {text}")));
    (parts.next().unwrap(), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The platform this test runs on, as rustc names it (`x86_64-unknown-linux-gnu`).
fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = Command::new(rustc).arg("-vV").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines().find_map(|line| line.strip_prefix("host: ")).expect("rustc -vV names its host").to_owned()
}

/// `cargo metadata` of the locked dependency graph for this platform: the crates a build here
/// fetched, and no other platform's, so that a fresh machine's cargo cache (which holds only
/// what its build downloaded) answers it offline.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["metadata", "--locked", "--offline", "--format-version", "1", "--filter-platform", &host()])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn rust_version_is_the_newest_any_locked_crate_declares() {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().unwrap();
    let ours = packages.iter().find(|package| package["name"] == "channel-bench").unwrap();
    let declared = ours["rust_version"].as_str().expect("Cargo.toml declares rust-version");
    let needed = packages
        .iter()
        .filter(|package| package["name"] != "channel-bench")
        .filter_map(|package| Some((version(package["rust_version"].as_str()?), package["name"].as_str()?)))
        .chain([((1, 85, 0), "edition 2024")])
        .max()
        .unwrap();
    assert_eq!(
        version(declared),
        needed.0,
        "Cargo.toml says rust-version {declared}; the newest the locked crates need is {needed:?}"
    );
    let (major, minor, _) = needed.0;
    let readme = one_line(&read("README.md"));
    assert!(readme.contains(&format!("Rust (cargo, {major}.{minor} or later)")), "README names another Rust");
}

/// The reference run: the first CSV whose short answer README.md carries between its markers
/// (the others are other machines' runs, read beside it).
fn reference_csv() -> String {
    let readme = read("README.md");
    let marker = "<!-- BEGIN channel-bench summary --short ";
    let line = readme.lines().find_map(|line| line.strip_prefix(marker)).expect("README's summary marker");
    line.trim_end_matches("-->").split_whitespace().next().expect("a CSV").to_string()
}

#[test]
fn the_reference_machine_in_the_docs_is_the_one_in_the_runs_json() {
    let json_path = reference_csv().replace(".csv", ".json");
    let machine: Value = serde_json::from_str(&read(&json_path)).unwrap();
    let (cpu, cores) = (machine["cpu_model"].as_str().unwrap(), machine["cores"].as_u64().unwrap());
    let rustc = machine["rustc"].as_str().unwrap().split(' ').take(2).collect::<Vec<_>>().join(" ");
    for doc in ["README.md", "docs/methodology.md"] {
        let text = one_line(&read(doc));
        let named = format!("{cores}-core VM (\"{cpu}\"");
        assert!(text.contains(&named), "{doc} does not name the reference machine as {named} ({json_path})");
        assert!(text.contains(&rustc), "{doc} does not name {rustc} ({json_path})");
        // Any other machine quoted the same way is a stale description of the reference machine.
        for (at, _) in text.match_indices("-core VM (\"") {
            let quoted = text[at + "-core VM (\"".len()..].split('"').next().unwrap();
            assert_eq!(quoted, cpu, "{doc} quotes another CPU for a VM");
        }
    }
}

#[test]
fn every_install_line_keeps_the_locked_versions() {
    // Without --locked, cargo install resolves the dependencies afresh: other crate versions
    // than the ones measured and named in the caveats.
    let mut lines = 0;
    for (doc, text) in docs() {
        for line in text.lines().filter(|line| line.contains("cargo install")) {
            assert!(line.contains("--locked"), "{doc}: {line}");
            lines += 1;
        }
    }
    assert!(lines > 0, "no install line found");
}

/// Every `src/…`, `tests/…` and `examples/…` path in `text` (not inside a URL), without
/// trailing punctuation.
fn source_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for prefix in ["src/", "tests/", "examples/"] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || "/.-_".contains(c)) {
                continue;
            }
            let path: String = text[at..].chars().take_while(|c| c.is_alphanumeric() || "/._-".contains(*c)).collect();
            paths.push(path.trim_end_matches(['.', ',']).to_string());
        }
    }
    paths
}

#[test]
fn every_source_path_the_docs_name_exists() {
    let mut checked = 0;
    for (doc, text) in docs() {
        for path in source_paths(&text) {
            assert!(root().join(&path).exists(), "{doc} names {path}, which does not exist");
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} paths found: is the pattern still right?");
}

#[test]
fn the_project_layout_lists_every_source_file_and_folder() {
    let reference = read("docs/reference.md");
    let layout = reference.split("## Project layout").nth(1).expect("docs/reference.md has a project layout");
    let block = layout.split("```").nth(1).unwrap();
    let listed: Vec<&str> = block.lines().filter_map(|line| line.split_whitespace().next()).collect();
    for entry in std::fs::read_dir(root().join("src")).unwrap() {
        let entry = entry.unwrap();
        let slash = if entry.path().is_dir() { "/" } else { "" };
        let name = format!("src/{}{slash}", entry.file_name().to_string_lossy());
        assert!(listed.contains(&name.as_str()), "docs/reference.md's project layout does not list {name}");
    }
}

/// (name, version) of every package in a Cargo.lock.
fn locked(lock: &str) -> Vec<(String, String)> {
    let value = |line: &str, key: &str| Some(line.strip_prefix(key)?.trim_matches('"').to_string());
    let lines: Vec<&str> = lock.lines().collect();
    lines.windows(2).filter_map(|pair| Some((value(pair[0], "name = ")?, value(pair[1], "version = ")?))).collect()
}

#[test]
fn a_crate_of_your_own_builds_on_channel_bench_by_path() {
    // As docs/custom-channel.md says: a path dependency, channel-bench's Cargo.lock copied,
    // examples/custom_channel.rs as the main.rs. The project's target directory and the same
    // features reuse what `cargo test` has just built.
    let dir = tempfile::tempdir().unwrap();
    let features = if cfg!(feature = "faults") { ", features = [\"faults\"]" } else { "" };
    let manifest = format!(
        "[package]\nname = \"my-bench\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nchannel-bench = {{ path = {:?}{features} }}\nfutures = \"0.3\"\n\
         tokio = {{ version = \"1\", features = [\"sync\"] }}\n\n[workspace]\n",
        root()
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::copy(root().join("examples/custom_channel.rs"), dir.path().join("src/main.rs")).unwrap();
    // A relative CARGO_TARGET_DIR is the project's; the build below runs elsewhere.
    let target = root().join(std::env::var_os("CARGO_TARGET_DIR").unwrap_or_else(|| "target".into()));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["build", "--offline", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    // The crates channel-bench measures keep their locked versions; only my-bench is new.
    let (ours, theirs) =
        (locked(&read("Cargo.lock")), locked(&std::fs::read_to_string(dir.path().join("Cargo.lock")).unwrap()));
    let added: Vec<_> = theirs.iter().filter(|package| !ours.contains(package)).collect();
    assert_eq!(added, [&("my-bench".to_string(), "0.1.0".to_string())]);

    let listed = Command::new(target.join("debug/my-bench")).arg("--list-channels").output().unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.contains("mutex-queue") && listed.contains("tokio-mpsc"), "{listed}");
}

/// Runs the binary in `dir`; panics unless it exits 0.
fn channel_bench(dir: &Path, args: &[&str]) {
    let output = common::bench().args(args).current_dir(dir).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// The blocks of `doc` that show a file (`$ cat NAME`, then the file's text up to the
/// fence), as (NAME, text).
fn shown_files(doc: &str) -> Vec<(String, String)> {
    let mut shown = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("$ cat ") {
            let name = rest.split_whitespace().next().unwrap().to_string();
            let text: Vec<&str> = lines.by_ref().take_while(|line| !line.starts_with("```")).collect();
            shown.push((name, text.join("\n")));
        }
    }
    shown
}

/// The run docs/exports.md shows: the CSV its `channel-bench cells results/….csv` lines name.
fn exports_csv() -> String {
    let exports = read("docs/exports.md");
    let named = exports.lines().filter_map(|line| line.strip_prefix("$ channel-bench cells ")).find_map(|rest| {
        rest.split_whitespace().next().filter(|path| path.starts_with("results/") && path.ends_with(".csv"))
    });
    named.expect("docs/exports.md names the run it shows").to_string()
}

#[test]
fn the_export_examples_show_what_cells_writes_for_the_run_they_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join(exports_csv()), dir.path().join("x.csv")).unwrap();
    channel_bench(dir.path(), &["cells", "x.csv", "--export-bmf", "bmf.json", "--export-github-action", "bench.json"]);
    let shown = shown_files(&read("docs/exports.md"));
    assert_eq!(shown.len(), 3, "docs/exports.md shows x.cells.json, bmf.json and bench.json");
    for (name, text) in shown {
        let written: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join(&name)).unwrap()).unwrap();
        let excerpt = shortened::parse(&text).unwrap_or_else(|error| panic!("docs/exports.md, {name}: {error}"));
        if let Err(error) = shortened::matches(&excerpt, &written, &name) {
            panic!("docs/exports.md shows {name} of {} otherwise than `cells` writes it: {error}", exports_csv());
        }
    }
}

/// The JSON excerpts of the docs: JSON with `…` for what is left out (array elements after
/// those shown, object members not shown) and numbers shortened to a few decimals.
mod shortened {
    use serde_json::Value;

    /// A parsed excerpt.
    #[derive(Debug)]
    pub enum Shown {
        /// A number as written, with its count of decimals.
        Number(f64, usize),
        Text(String),
        Other(Value),
        /// Elements, and whether more were left out (`…`).
        List(Vec<Shown>, bool),
        /// Members, and whether others were left out.
        Object(Vec<(String, Shown)>, bool),
    }

    pub fn parse(text: &str) -> Result<Shown, String> {
        let mut parser = Parser { text: text.replace('…', "\u{1}"), at: 0 };
        let shown = parser.value()?;
        parser.skip_space();
        if parser.at == parser.text.len() { Ok(shown) } else { Err(format!("trailing text at {}", parser.at)) }
    }

    struct Parser {
        text: String,
        at: usize,
    }

    impl Parser {
        fn skip_space(&mut self) {
            self.at += self.text[self.at..].len() - self.text[self.at..].trim_start().len();
        }

        fn peek(&mut self) -> Option<char> {
            self.skip_space();
            self.text[self.at..].chars().next()
        }

        fn eat(&mut self, expected: char) -> Result<(), String> {
            match self.peek() {
                Some(found) if found == expected => {
                    self.at += found.len_utf8();
                    Ok(())
                }
                found => Err(format!("expected {expected:?} at {}, found {found:?}", self.at)),
            }
        }

        /// Elements up to `close`, each read by `element`; whether a `…` stood among them.
        fn sequence<T>(
            &mut self,
            close: char,
            mut element: impl FnMut(&mut Self) -> Result<T, String>,
        ) -> Result<(Vec<T>, bool), String> {
            let (mut items, mut more) = (Vec::new(), false);
            loop {
                match self.peek() {
                    Some(found) if found == close => {
                        self.at += 1;
                        return Ok((items, more));
                    }
                    Some(',') => self.at += 1,
                    Some('\u{1}') => {
                        self.at += 1;
                        more = true;
                    }
                    _ => items.push(element(self)?),
                }
            }
        }

        fn value(&mut self) -> Result<Shown, String> {
            match self.peek() {
                Some('{') => {
                    self.at += 1;
                    let (members, more) = self.sequence('}', |parser| {
                        let Shown::Text(key) = parser.value()? else { return Err("a key".into()) };
                        parser.eat(':')?;
                        Ok((key, parser.value()?))
                    })?;
                    Ok(Shown::Object(members, more))
                }
                Some('[') => {
                    self.at += 1;
                    let (items, more) = self.sequence(']', Self::value)?;
                    Ok(Shown::List(items, more))
                }
                _ => {
                    let mut stream = serde_json::Deserializer::from_str(&self.text[self.at..]).into_iter::<Value>();
                    let value = stream.next().ok_or("a value")?.map_err(|error| error.to_string())?;
                    let written = &self.text[self.at..self.at + stream.byte_offset()];
                    self.at += stream.byte_offset();
                    Ok(match value {
                        Value::Number(number) => {
                            let decimals = written.split('.').nth(1).map_or(0, str::len);
                            Shown::Number(number.as_f64().unwrap(), decimals)
                        }
                        Value::String(text) => Shown::Text(text),
                        other => Shown::Other(other),
                    })
                }
            }
        }
    }

    /// Whether `actual`, rounded to `decimals`, is what was written.
    fn same_number(shown: f64, decimals: usize, actual: f64) -> bool {
        let scale = 10f64.powi(decimals as i32);
        ((actual * scale).round() - shown * scale).abs() < 0.5
    }

    /// Whether the numbers inside `shown` ("± 7.428") are `actual`'s rounded, the rest equal.
    fn same_text(shown: &str, actual: &str) -> bool {
        let words = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
        let (shown, actual) = (words(shown), words(actual));
        shown.len() == actual.len()
            && shown.iter().zip(&actual).all(|(shown, actual)| {
                shown == actual
                    || match (shown.parse::<f64>(), actual.parse::<f64>()) {
                        (Ok(value), Ok(real)) => same_number(value, shown.split('.').nth(1).map_or(0, str::len), real),
                        _ => false,
                    }
            })
    }

    /// Whether the excerpt `shown` is part of `actual`: members present and equal, lists equal
    /// up to a `…`, a list of objects with a `name` matched by name.
    pub fn matches(shown: &Shown, actual: &Value, at: &str) -> Result<(), String> {
        let ok = match (shown, actual) {
            (Shown::Number(value, decimals), Value::Number(real)) => {
                same_number(*value, *decimals, real.as_f64().unwrap())
            }
            (Shown::Text(text), Value::String(real)) => same_text(text, real),
            (Shown::Other(value), real) => value == real,
            (Shown::Object(members, more), Value::Object(real)) => {
                for (key, member) in members {
                    let real = real.get(key).ok_or_else(|| format!("{at}.{key} is not written"))?;
                    matches(member, real, &format!("{at}.{key}"))?;
                }
                if !*more && members.len() != real.len() {
                    return Err(format!("{at} has members the excerpt neither shows nor marks with …"));
                }
                true
            }
            (Shown::List(items, more), Value::Array(real)) => {
                for (index, item) in items.iter().enumerate() {
                    let named = match item {
                        Shown::Object(members, _) => members.iter().find_map(|(key, value)| match value {
                            Shown::Text(name) if key == "name" => Some(name),
                            _ => None,
                        }),
                        _ => None,
                    };
                    let (real_item, place) = match named {
                        Some(name) => (real.iter().find(|cell| cell["name"] == name.as_str()), format!("{at}[{name}]")),
                        None => (real.get(index), format!("{at}[{index}]")),
                    };
                    matches(item, real_item.ok_or_else(|| format!("{place} is not written"))?, &place)?;
                }
                // One named cell of many is an excerpt too.
                *more || items.len() == real.len() || matches!(items.first(), Some(Shown::Object(..)))
            }
            _ => false,
        };
        if ok { Ok(()) } else { Err(format!("{at}: {shown:?} against {actual}")) }
    }
}

#[test]
fn the_readmes_pictures_are_files_of_the_repository() {
    let readme = read("README.md");
    let pictures: Vec<&str> = readme
        .match_indices("![")
        .filter_map(|(at, _)| readme[at..].split_once("](")?.1.split_once(')').map(|(path, _)| path))
        .collect();
    assert!(pictures.len() >= 2, "the README shows the reference run's plot and the SFU run's: {pictures:?}");
    for path in pictures {
        assert!(!path.starts_with("http"), "{path}: a picture of the repository, not of the web");
        assert!(root().join(path).is_file(), "README.md shows {path}, which is not a file of the repository");
    }
}
