//! Docs a test keeps true: every `channel-bench …`, `make …` and `cargo run … --example …`
//! command line of README.md and docs/*.md (code blocks and inline code spans) passes
//! `--dry-run`, or, marked `# refused` in the doc, is refused with exit code 2.
//!
//! `make bench ARGS=… OUT=…` is the binary with ARGS and `--out OUT`; `make answer CSV=X` is
//! `summary --force`, `report --force` and `summary --short` of X; the other make targets must
//! exist in the Makefile. `cargo run --example custom_channel -- ARGS` dry-runs the example
//! when `cargo test` has built it (a plain `cargo test` does), and is skipped, saying so, when
//! not; the other examples are timing programs, so only their source is checked. A CSV named
//! by a placeholder (`X.csv`, `OLD.csv`, `results/<the new CSV>`) is a small CSV made here.
//! Nothing here measures: the whole file runs in well under a second of the binary's time.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One documented command line: where it is, and its words after the program's name.
#[derive(Debug)]
struct Documented {
    place: String,
    line: String,
    refused: bool,
}

/// The documents whose commands are checked.
fn documents() -> Vec<PathBuf> {
    let mut paths = vec![Path::new(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
}

/// The command lines of one Markdown text: each line of a fenced block, and each inline code
/// span of the prose (a paragraph's lines joined, as a span may wrap), that starts a command.
fn commands(name: &str, text: &str) -> Vec<Documented> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut paragraph = String::new();
    let flush = |paragraph: &mut String, found: &mut Vec<Documented>| {
        for (index, span) in paragraph.split('`').enumerate() {
            if index % 2 == 1 {
                found.extend(command_in(name, span));
            }
        }
        paragraph.clear();
    };
    let mut continued = String::new();
    for (number, line) in text.lines().enumerate() {
        // A fenced line ending in `\` goes on in the next: one command.
        if fenced && line.trim_end().ends_with('\\') {
            continued.push_str(line.trim_end().trim_end_matches('\\'));
            continue;
        }
        let joined = std::mem::take(&mut continued) + line;
        let line = joined.as_str();
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut found);
            fenced = !fenced;
        } else if fenced {
            found.extend(command_in(&format!("{name}:{}", number + 1), line));
        } else if line.trim().is_empty() || line.starts_with('|') {
            flush(&mut paragraph, &mut found);
            // A table row is a paragraph of its own.
            paragraph.push_str(line);
            flush(&mut paragraph, &mut found);
        } else {
            paragraph.push(' ');
            paragraph.push_str(line.trim());
        }
    }
    flush(&mut paragraph, &mut found);
    found
}

/// The command that `text` starts (after a `$ `, `- run: `, a quote, `/usr/bin/time -v`, a
/// path to the binary), without its comment or redirection; `None` for anything else.
fn command_in(place: &str, text: &str) -> Option<Documented> {
    let refused = text.contains("# refused");
    let text = text.split(" #").next().unwrap();
    let text = text.split(['>', '|']).next().unwrap();
    let text = text.trim().trim_start_matches("$ ").trim_start_matches("- run: ").trim_matches('"');
    let text = text.trim_start_matches("/usr/bin/time -v ").trim();
    // The program itself (`channel-bench`, `./target/release/channel-bench`), not a file named after it.
    let start = text.find("channel-bench").filter(|&at| {
        let (before, after) = (&text[..at], &text[at + "channel-bench".len()..]);
        (before.is_empty() || before.ends_with('/'))
            && !before.contains(' ')
            && (after.is_empty() || after.starts_with(' '))
            && !after.trim_start().starts_with('=')
    });
    let line = match start {
        Some(at) => &text[at..],
        None if text.starts_with("make ") || text == "make" => text,
        None if text.starts_with("cargo run") && text.contains("--example") => text,
        None => return None,
    };
    Some(Documented { place: place.to_owned(), line: line.trim().to_owned(), refused })
}

/// Shell words: split on spaces, double or single quotes keep spaces.
fn words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => (quote, started) = (Some(c), true),
            (None, ' ') if started || !word.is_empty() => {
                words.push(std::mem::take(&mut word));
                started = false;
            }
            (None, ' ') => {}
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// A placeholder for a CSV the reader brings: `X.csv`, `x.csv`, `OLD.csv`, `FILE.csv`,
/// `<the new CSV>`.
fn is_placeholder_csv(word: &str) -> bool {
    let name = word.rsplit('/').next().unwrap();
    let stem = name.strip_suffix(".csv").unwrap_or("");
    word.contains('<') || (!stem.is_empty() && (stem.chars().all(|c| c.is_ascii_uppercase()) || stem.len() == 1))
}

/// The binary's argument lists for one documented line, or why it is skipped.
fn invocations(line: &str, csv: &Path) -> Result<Vec<(PathBuf, Vec<String>)>, String> {
    let line = line.replace("<the new CSV>", "NEW.csv");
    let mut words = words(&line);
    for word in &mut words {
        if is_placeholder_csv(word) {
            *word = csv.display().to_string();
        }
    }
    let binary = common::binary();
    let program = words.remove(0);
    if program.ends_with("channel-bench") {
        if let Some(synopsis) =
            words.iter().find(|word| word.chars().all(|c| c.is_ascii_uppercase()) || word.starts_with('['))
        {
            return Err(format!("a synopsis ({synopsis})"));
        }
        return Ok(vec![(binary, words)]);
    }
    if program == "make" {
        return make(&words, binary, csv);
    }
    let example = words.iter().skip_while(|word| *word != "--example").nth(1).ok_or("no example named")?.clone();
    let source = Path::new(ROOT).join("examples").join(format!("{example}.rs"));
    assert!(source.exists(), "{line}: no {}", source.display());
    let args: Vec<String> = words.iter().skip_while(|word| *word != "--").skip(1).cloned().collect();
    if example != "custom_channel" {
        return Err(format!("the timing example {example}, which takes no flags, is not run"));
    }
    // The example built beside this test's executable by `cargo test`, when it was, and not
    // before the binary (`cargo test --test docs` alone leaves an older one in place).
    let built = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("examples").join(&example);
    let modified = |path: &Path| std::fs::metadata(path).and_then(|metadata| metadata.modified()).ok();
    if modified(&built).is_none() || modified(&built) < modified(&binary) {
        return Err(format!("{} is not built, or older than the binary (`cargo test` builds it)", built.display()));
    }
    Ok(vec![(built, args)])
}

/// `make TARGET VAR=…`: the binary's argument lists of `bench` and `answer`; every other
/// target must be one of the Makefile's.
fn make(words: &[String], binary: PathBuf, csv: &Path) -> Result<Vec<(PathBuf, Vec<String>)>, String> {
    let variable = |name: &str| words.iter().find_map(|word| word.strip_prefix(&format!("{name}=")).map(str::to_owned));
    let target = words.iter().find(|word| !word.contains('=')).map_or("bench", String::as_str);
    match target {
        "bench" => {
            let mut args = variable("ARGS").map(|args| self::words(&args)).unwrap_or_default();
            if let Some(out) = variable("OUT") {
                args.extend(["--out".to_owned(), out]);
            }
            Ok(vec![(binary, args)])
        }
        "answer" => {
            let csv = variable("CSV").unwrap_or_else(|| csv.display().to_string());
            let runs = [&["summary", "--force"][..], &["report", "--force"], &["summary", "--short"]];
            Ok(runs
                .iter()
                .map(|run| (binary.clone(), run.iter().map(|word| word.to_string()).chain([csv.clone()]).collect()))
                .collect())
        }
        other => {
            let makefile = std::fs::read_to_string(Path::new(ROOT).join("Makefile")).unwrap();
            assert!(makefile.lines().any(|line| line.starts_with(&format!("{other}:"))), "no make target {other}");
            Err(format!("make {other} runs no sweep"))
        }
    }
}

#[test]
fn every_documented_command_passes_dry_run_or_is_marked_refused_and_is() {
    let dir = tempfile::tempdir().unwrap();
    let csv = common::write(
        dir.path(),
        "placeholder.csv",
        &format!("{}\n{}", common::HEADER, common::cell("kanal", "current-thread", 1, &[50.0, 51.0])),
    );
    let (mut checked, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(ROOT).unwrap().display().to_string();
        for documented in commands(&name, &text) {
            let runs = match invocations(&documented.line, &csv) {
                Ok(runs) => runs,
                Err(why) => {
                    skipped.push(format!("{}: {}: {why}", documented.place, documented.line));
                    continue;
                }
            };
            for (program, mut args) in runs {
                if !args.iter().any(|arg| arg == "--help" || arg == "--list-channels") {
                    args.push("--dry-run".to_owned());
                }
                let output = Command::new(&program).args(&args).current_dir(ROOT).output().unwrap();
                let code = output.status.code();
                let stderr = String::from_utf8_lossy(&output.stderr);
                let expected = if documented.refused { Some(2) } else { Some(0) };
                if code != expected {
                    failures.push(format!(
                        "{}: `{}` → {code:?}, not {expected:?}: {stderr}",
                        documented.place, documented.line
                    ));
                }
                checked += 1;
            }
        }
    }
    for line in &skipped {
        eprintln!("skipped {line}");
    }
    assert!(failures.is_empty(), "{} of {checked} documented commands fail:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 20, "only {checked} documented commands found: is the extraction broken?");
}

#[test]
fn commands_are_found_in_blocks_wrapped_spans_and_tables_with_their_marks() {
    let text = "Run `make bench ARGS=\"--channels kanal\n--tasks 1,64\" OUT=results/mine.csv` now.\n\n\
                | `channel-bench --quick` | x |\n\n```\n$ channel-bench --tasks 0   # refused: exit 2\n\
                cargo run --example custom_channel -- --quick\nerror: something\n```\n`--latency` alone\n";
    let found: Vec<(String, bool)> = commands("x.md", text).into_iter().map(|d| (d.line, d.refused)).collect();
    assert_eq!(
        found,
        [
            ("make bench ARGS=\"--channels kanal --tasks 1,64\" OUT=results/mine.csv".to_owned(), false),
            ("channel-bench --quick".to_owned(), false),
            ("channel-bench --tasks 0".to_owned(), true),
            ("cargo run --example custom_channel -- --quick".to_owned(), false),
        ]
    );
    assert_eq!(words("a \"b c\" d"), ["a", "b c", "d"]);
    assert!(
        is_placeholder_csv("results/X.csv") && is_placeholder_csv("OLD.csv") && !is_placeholder_csv("results/mine.csv")
    );
}
