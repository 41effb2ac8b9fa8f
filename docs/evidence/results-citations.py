#!/usr/bin/env python3
"""Which files under results/ something in the repository cites, and how.

    python3 docs/evidence/results-citations.py [--uncited]

Reads README.md, docs/ (pages and evidence scripts), tests/ (Rust, test_plot.py and the golden
files), src/, examples/, Makefile, plot.py and .ci/, and prints one line per file under
results/: how it is cited (`exact` path, `stem` (the path without its extension, as in
`aa-slower-host/old1`), `range` (`run1`–`run5`), `folder`, `glob`, or `beside` a cited CSV:
its .json, .md, .html, .png, .cells.json) and by what, or `UNCITED`. A Rust `{NAME}` in a
format string is replaced by the file's `const NAME: &str` (each of them where the name is a
parameter, as golden.rs's `{run}`). A file named without its folder (`cap1024.csv` in a page
that names the folder elsewhere) shows as `folder` or `UNCITED`: read the page before
deleting. `results/` and `results/reference/` themselves, named by docs/reference.md's
project layout, cite no file. With `--uncited`, prints only the uncited files' paths.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve()
CITERS = ["README.md", "Makefile", "plot.py", "test_plot.py", "docs", "tests", "src", "examples", ".ci"]
TOKEN = re.compile(r"results/[A-Za-z0-9_./*{}\-–]*")
# Folders named only to describe the layout (docs/reference.md), which cite none of their files.
LAYOUT = {"results", "results/reference"}
RANGE = re.compile(r"^(.*?)(\d+)–(?:\1)?(\d+)$")


def citer_texts():
    for name in CITERS:
        base = ROOT / name
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            if path.resolve() == SELF or path.suffix in {".png", ".csv"}:
                continue
            try:
                text = path.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            yield str(path.relative_to(ROOT)), text


def rust_consts(text):
    return dict(re.findall(r'const ([A-Z_]+): &str = "([^"]*)";', text))


def expand(token, consts):
    """The token with each `{NAME}` replaced: by its const, else by every const."""
    names = re.findall(r"\{([A-Za-z_]+)\}", token)
    if not names:
        return [token]
    name = names[0]
    values = [consts[name]] if name in consts else list(consts.values())
    return [t for value in values for t in expand(token.replace("{" + name + "}", value, 1), consts)]


def citations():
    """(pattern, kind, citer) for every reference to results/."""
    found = []
    for citer, text in citer_texts():
        consts = rust_consts(text) if citer.endswith(".rs") else {}
        # `{TWINS}/twin`: a const that is itself under results/ joined in a format string.
        for name, value in consts.items():
            if value.startswith("results/"):
                text = text.replace("{" + name + "}", value)
        for raw in TOKEN.findall(text):
            for token in expand(raw, consts):
                token = token.rstrip(".,;:)`'\"")
                if "{" in token:
                    continue
                found.append((token, citer))
    return found


def classify(path, cites):
    rel = str(path.relative_to(ROOT))
    stem = rel.split(".")[0]
    how = []
    for token, citer in cites:
        if token == rel:
            how.append(("exact", citer))
        elif token == stem:
            how.append(("stem", citer))
        elif "*" in token and Path(rel).match(token) and rel.count("/") == token.count("/"):
            how.append(("glob", citer))
        elif (m := RANGE.match(token)) and stem.startswith(m.group(1)):
            tail = stem[len(m.group(1)):]
            if tail.isdigit() and int(m.group(2)) <= int(tail) <= int(m.group(3)):
                how.append(("range", citer))
        elif token.rstrip("/") not in LAYOUT and (ROOT / token).is_dir() and rel.startswith(token.rstrip("/") + "/"):
            how.append(("folder", citer))
    return how


def main():
    cites = citations()
    files = sorted(p for p in (ROOT / "results").rglob("*") if p.is_file())
    table = {p: classify(p, cites) for p in files}
    # Beside a cited CSV: the run's other files.
    cited_runs = {str(p.relative_to(ROOT)).split(".")[0] for p, how in table.items() if how and p.suffix == ".csv"}
    for p, how in table.items():
        if not how and str(p.relative_to(ROOT)).split(".")[0] in cited_runs:
            how.append(("beside", "its CSV"))
    only_uncited = "--uncited" in sys.argv
    for p, how in table.items():
        rel = p.relative_to(ROOT)
        size = p.stat().st_size
        if only_uncited:
            if not how:
                print(rel)
            continue
        if how:
            kinds = sorted({k for k, _ in how})
            by = sorted({c for _, c in how})
            print(f"{size:>10}  {'+'.join(kinds):<14} {rel}  <- {', '.join(by)}")
        else:
            print(f"{size:>10}  {'UNCITED':<14} {rel}")


if __name__ == "__main__":
    main()
