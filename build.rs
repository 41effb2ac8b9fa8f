//! Records what the run's JSON reports about the build: the compiler, the locked
//! version of every dependency, and the git commit.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=src");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let rustc_version = output_of(Command::new(rustc).arg("--version")).unwrap_or_default();
    println!("cargo:rustc-env=CHANNEL_BENCH_RUSTC={rustc_version}");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    println!("cargo:rustc-env=CHANNEL_BENCH_LOCKED={}", locked_versions(&lock));
    println!("cargo:rustc-env=CHANNEL_BENCH_GIT={}", git_commit().unwrap_or_default());
}

/// `name=version` pairs of every package in Cargo.lock, separated by `;`.
fn locked_versions(lock: &str) -> String {
    let mut pairs = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"'));
        } else if let (Some(value), Some(package)) = (line.strip_prefix("version = "), name.take()) {
            pairs.push(format!("{package}={}", value.trim_matches('"')));
        }
    }
    pairs.join(";")
}

fn git_commit() -> Option<String> {
    let git_dir = output_of(Command::new("git").args(["rev-parse", "--git-dir"]))?;
    for watched in ["HEAD", "index"] {
        println!("cargo:rerun-if-changed={git_dir}/{watched}");
    }
    let commit = output_of(Command::new("git").args(["rev-parse", "HEAD"]))?;
    let changes = output_of(Command::new("git").args(["status", "--porcelain", "--untracked-files=no"]))?;
    Some(if changes.is_empty() { commit } else { format!("{commit}-dirty") })
}

fn output_of(command: &mut Command) -> Option<String> {
    let output = command.output().ok().filter(|output| output.status.success())?;
    Some(String::from_utf8(output.stdout).ok()?.trim().to_owned())
}
