//! Every relative link of README.md and docs/**/*.md resolves in the working tree:
//! - a Markdown link or image `[text](target)` outside fenced code, relative to its page, names
//!   a file or folder, and its `#anchor`, when the target is a Markdown page (or the page
//!   itself), names a heading of that page (GitHub's slugs) or an `<a id="…">`;
//! - a path under `results/reference/` in code (an inline span or a fenced block), relative to
//!   the repository root, names a file or folder; one without an extension that is no folder
//!   names a run by its stem (`results/reference/aa/run1`: `run1.csv`). A path with a placeholder
//!   (`<`, `*`, `…`, `{`) names none and is skipped, as are targets with a scheme (`https:`).
//!
//! The one exemption: a page whose evidence left the working tree says so once, naming the
//! commit that holds it ("… in the repository at commit 6d7aacb …"). On such a page a path under
//! `results/` in code that the working tree lacks passes when it exists at that commit
//! (`git cat-file -e COMMIT:PATH`); where the clone cannot answer (no git, a shallow clone
//! without that commit) it passes, and the test says so on stderr. A Markdown link is never
//! exempt: what a reader can click resolves in the working tree.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The words that name a page's commit: the hash follows them.
const AT_COMMIT: &str = "in the repository at commit ";

/// What a page points at: its target as written, and whether it is a Markdown link (relative
/// to the page) or a path in code (relative to the repository root).
#[derive(Debug, PartialEq)]
enum Link {
    Markdown(String),
    Code(String),
}

/// The links of one Markdown text, in order: per paragraph (a code span or a link may wrap onto
/// the next line; a table row is a paragraph of its own), its code paths, then its links.
fn links(text: &str) -> Vec<Link> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut paragraph = String::new();
    for line in text.lines().chain([""]) {
        let fence = line.trim_start().starts_with("```");
        if fenced && !fence {
            found.extend(code_paths(line).into_iter().map(Link::Code));
        } else if fence || line.trim().is_empty() || line.starts_with('|') {
            found.extend(paragraph_links(&std::mem::take(&mut paragraph)));
            if line.starts_with('|') {
                found.extend(paragraph_links(line));
            }
            fenced ^= fence;
        } else {
            paragraph.push_str(line);
            paragraph.push('\n');
        }
    }
    found
}

/// The code paths, then the Markdown links, of one paragraph of prose.
fn paragraph_links(paragraph: &str) -> Vec<Link> {
    let pieces: Vec<&str> = paragraph.split('`').collect();
    let mut found: Vec<Link> =
        pieces.iter().skip(1).step_by(2).flat_map(|code| code_paths(code)).map(Link::Code).collect();
    // Code spans blanked, so that a `](` inside one is not a link.
    let prose: String = pieces.iter().enumerate().map(|(i, piece)| if i % 2 == 1 { "_" } else { piece }).collect();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            found.push(Link::Markdown(target.to_owned()));
        }
    }
    found
}

/// The paths under `results/reference/` in a piece of code, without placeholders.
fn code_paths(code: &str) -> Vec<String> {
    code.split(|c: char| c.is_whitespace() || ",=()\"'".contains(c))
        .map(|word| word.trim_end_matches(['.', ';', ':']))
        .filter(|word| word.starts_with("results/reference/"))
        .filter(|word| !word.contains(['<', '*', '…', '{', '[']))
        .map(str::to_owned)
        .collect()
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link in a heading counts by its text.
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|at| open + at) else { break };
        let end = rest[close..].find(')').map_or(rest.len(), |at| close + at + 1);
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end..];
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text: its headings' slugs (a repeated one numbered `-1`, `-2`)
/// and its `<a id="…">`s.
fn anchors(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let base = slug(line.trim_start_matches('#').trim().trim_end_matches('#').trim());
            let repeats = found.iter().filter(|seen| **seen == base || seen.starts_with(&format!("{base}-"))).count();
            let anchor = if found.contains(&base) { format!("{base}-{repeats}") } else { base };
            found.push(anchor);
        }
        for piece in line.split("<a id=\"").skip(1) {
            found.extend(piece.split('"').next().map(str::to_owned));
        }
    }
    found
}

/// `path` with `.` and `..` taken out, or None when it climbs above its start.
fn normal(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether git can say that `path` exists at `commit`: Some(answer), None when it cannot tell.
fn at_commit(root: &Path, commit: &str, path: &Path) -> Option<bool> {
    let git = |spec: &str| Command::new("git").args(["cat-file", "-e", spec]).current_dir(root).output().ok();
    let known = git(&format!("{commit}^{{commit}}"))?.status.success();
    if !known {
        return None;
    }
    Some(git(&format!("{commit}:{}", path.display()))?.status.success())
}

/// The broken links of page `page` (relative to `root`) whose text is `text`: one line each.
fn broken(root: &Path, page: &Path, text: &str) -> Vec<String> {
    let commit = text.split(AT_COMMIT).nth(1).map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect());
    let commit: Option<String> = commit.filter(|hash: &String| hash.len() >= 7);
    let dir = page.parent().unwrap_or(Path::new(""));
    let mut errors = Vec::new();
    for link in links(text) {
        let (written, target) = match &link {
            Link::Markdown(target) if target.starts_with('#') => (target, page.to_path_buf()),
            Link::Markdown(target) => (target, dir.join(target.split('#').next().unwrap())),
            Link::Code(path) => (path, PathBuf::from(path)),
        };
        let anchor = written.split_once('#').map(|(_, anchor)| anchor);
        let Some(path) = normal(&target) else {
            errors.push(format!("{}: {written} climbs out of the repository", page.display()));
            continue;
        };
        // A run named by its stem (`results/reference/aa/run1`, for run1.csv and its JSON).
        let mut names = vec![path.clone()];
        if matches!(link, Link::Code(_)) && path.extension().is_none() {
            names.push(path.with_extension("csv"));
        }
        if !names.iter().any(|name| root.join(name).exists()) {
            let exempt = commit.as_deref().filter(|_| matches!(link, Link::Code(_)) && path.starts_with("results"));
            let held = |commit| names.iter().map(|name| at_commit(root, commit, name)).max();
            match exempt.map(|commit| (commit, held(commit).flatten())) {
                Some((_, Some(true))) => {}
                Some((commit, None)) => eprintln!("{}: {written}: cannot check it at {commit} here", page.display()),
                Some((commit, Some(false))) => {
                    errors.push(format!("{}: {written} is neither here nor at commit {commit}", page.display()))
                }
                None => errors.push(format!("{}: {written} is not in the working tree", page.display())),
            }
            continue;
        }
        if let Some(anchor) = anchor.filter(|anchor| !anchor.is_empty() && path.extension().is_some_and(|e| e == "md"))
        {
            let heads = anchors(&std::fs::read_to_string(root.join(&path)).unwrap());
            if !heads.iter().any(|head| head == anchor) {
                errors.push(format!("{}: {written}: {} has no heading #{anchor}", page.display(), path.display()));
            }
        }
    }
    errors
}

/// README.md and every Markdown page under docs/, relative to the root.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("README.md")];
    let mut folders = vec![PathBuf::from("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(root.join(&folder)).unwrap() {
            let name = folder.join(entry.unwrap().file_name());
            if root.join(&name).is_dir() {
                folders.push(name);
            } else if name.extension().is_some_and(|extension| extension == "md") {
                found.push(name);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let root = Path::new(ROOT);
    let pages = pages(root);
    assert!(pages.len() > 5 && pages.iter().any(|page| page.starts_with("docs/results")), "{pages:?}");
    let texts: Vec<(&PathBuf, String)> =
        pages.iter().map(|page| (page, std::fs::read_to_string(root.join(page)).unwrap())).collect();
    let found: Vec<Link> = texts.iter().flat_map(|(_, text)| links(text)).collect();
    let code = found.iter().filter(|link| matches!(link, Link::Code(_))).count();
    assert!(
        found.len() > 60 && code > 10,
        "{} links, {code} of them paths in code: the finder misses some",
        found.len()
    );
    let errors: Vec<String> = texts.iter().flat_map(|(page, text)| broken(root, page, text)).collect();
    assert!(errors.is_empty(), "broken links:\n{}", errors.join("\n"));
}

#[test]
fn the_link_finder_reads_links_images_and_code_paths_and_skips_placeholders() {
    let text = "# T\nSee [a](there.md#t), ![p](pic.png \"title\"), [w](https://x.org) and `[x](y.md)`.\n\
        Run `summary results/reference/a.csv,results/reference/b.csv` not `results/reference/<run>.csv`.\n\
        ```\n[no](link.md) results/reference/c.csv\n```\n\
        A span `summary\nresults/reference/d.csv` and a [link\nthat wraps](wrapped.md).\n";
    let expected = [
        Link::Code("results/reference/a.csv".into()),
        Link::Code("results/reference/b.csv".into()),
        Link::Markdown("there.md#t".into()),
        Link::Markdown("pic.png".into()),
        Link::Code("results/reference/c.csv".into()),
        Link::Code("results/reference/d.csv".into()),
        Link::Markdown("wrapped.md".into()),
    ];
    assert_eq!(links(text), expected);
}

#[test]
fn a_missing_file_or_heading_is_a_broken_link() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/b.md"), "# The `b` page: one\n## Two\n## Two\n").unwrap();
    let page = Path::new("docs/a.md");
    let good = "# One\n[b](b.md#the-b-page-one) [two](b.md#two-1) [up](../docs/) [me](#) [one](#one)";
    std::fs::write(dir.path().join(page), good).unwrap();
    assert_eq!(broken(dir.path(), page, good), Vec::<String>::new());
    let bad = "[c](c.md), [b](b.md#three), `results/reference/gone.csv`, [out](../../x.md)";
    let errors = broken(dir.path(), page, bad);
    assert_eq!(errors.len(), 4, "{errors:?}");
    let says = |text: &str| errors.iter().any(|error| error.contains(text));
    assert!(says("results/reference/gone.csv is not in the working tree"), "{errors:?}");
    assert!(says("c.md is not in the working tree") && says("has no heading #three"), "{errors:?}");
    assert!(says("../../x.md climbs out of the repository"), "{errors:?}");
}

#[test]
fn a_page_naming_its_commit_may_cite_results_only_that_commit_holds() {
    let root = Path::new(ROOT);
    let page = Path::new("docs/results/old.md");
    // This file was in the repository at its first commit.
    let first = Command::new("git").args(["rev-list", "--max-parents=0", "HEAD"]).current_dir(root).output();
    let Some(first) = first.ok().filter(|out| out.status.success()) else {
        eprintln!("no git history here: the commit exemption is not checked");
        return;
    };
    let first = String::from_utf8(first.stdout).unwrap().lines().last().unwrap().to_owned();
    let named = format!("They are {AT_COMMIT}{first}. `results/reference/never-was.csv`");
    assert_eq!(broken(root, page, &named).len(), 1, "a path the commit lacks is broken");
    let unnamed = "`results/reference/never-was.csv`";
    assert!(broken(root, page, unnamed)[0].contains("not in the working tree"));
}
