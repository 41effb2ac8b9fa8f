//! The Makefile's `bench` driven with a stand-in for cargo and the binary: a refusal comes
//! before the build and writes nothing, and a usage error of the binary is not plotted.

use std::path::Path;
use std::process::Command;

mod common;

/// `make bench` of this checkout with `vars`, its recipes not echoed; cargo is `sh -c 'touch BUILT'`, so a build
/// leaves the file `built` in `dir`, and Python is `false`, so no plot can make a venv. The
/// exit code, stdout and stderr.
fn make_bench(dir: &Path, vars: &[String]) -> (Option<i32>, String, String) {
    let built = dir.join("built");
    let mut make = Command::new("make");
    make.args(["--no-print-directory", "--silent", "-C"]).arg(env!("CARGO_MANIFEST_DIR")).arg("bench");
    make.arg(format!("CARGO=sh -c 'touch {}' sh", built.display())).arg("PYTHON=false").args(vars);
    // A `make test` above this one shares its jobserver through these, which a fresh make must not.
    for inherited in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL"] {
        make.env_remove(inherited);
    }
    let output = make.output().expect("make runs");
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (output.status.code(), text(output.stdout), text(output.stderr))
}

/// The files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn make_bench_refuses_an_existing_out_or_sibling_before_building_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for taken in ["mine.csv", "mine.md", "mine.png"] {
        let path = common::write(dir.path(), taken, "keep me\n");
        let out = format!("OUT={}", dir.path().join("mine.csv").display());
        let (code, stdout, stderr) = make_bench(dir.path(), &[out, "ARGS=--quick".to_owned()]);
        assert_eq!(code, Some(2), "{taken}: {stdout}{stderr}");
        assert!(stderr.contains(&format!("{} already exists", path.display())), "{taken}: {stderr}");
        assert!(stderr.contains("--force"), "{taken}: {stderr}");
        assert_eq!(files_in(dir.path()), [taken], "{taken}: nothing built, nothing written");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
        std::fs::remove_file(path).unwrap();
    }
    // A new OUT is built: the stand-in for cargo ran (then the stand-in binary fails).
    let out = format!("OUT={}", dir.path().join("new.csv").display());
    let (code, _, stderr) = make_bench(dir.path(), &[out, "BIN=false".to_owned()]);
    assert_ne!(code, Some(0), "{stderr}");
    assert_eq!(files_in(dir.path()), ["built"], "{stderr}");
}

#[test]
fn make_bench_with_force_builds_and_does_not_plot_an_old_csv_the_binary_refused() {
    let dir = tempfile::tempdir().unwrap();
    let old = common::write(dir.path(), "old.csv", "channel\nkanal\n");
    let vars = [
        format!("OUT={}", old.display()),
        "ARGS=--quick --force".to_owned(),
        // The binary's answer to a usage error: exit 2, having measured nothing.
        "BIN=sh -c 'exit 2' sh".to_owned(),
    ];
    let (code, stdout, stderr) = make_bench(dir.path(), &vars);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("plot"), "the old CSV was plotted: {stdout}");
    assert_eq!(files_in(dir.path()), ["built", "old.csv"], "{stdout}{stderr}");
}
