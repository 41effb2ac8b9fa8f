//! A request the run cannot keep is said before the rounds and on the page, with what was
//! measured instead.

mod common;
use common::run;

#[test]
fn merged_recv_below_its_floor_is_said_with_the_slots_measured_before_the_rounds_and_on_the_page() {
    let asked = ["--tasks", "64", "--capacity", "32", "--modes", "merged-recv", "--channels", "kanal"];
    let said = "note: --capacity 32 in merged-recv at 64 tasks: measured at 16 slots a task's channel (the least it \
                gets), 1,024 slots in all, not 32";
    let (code, stdout, stderr) = run(asked.iter().chain(&["--dry-run"]));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(said), "{stdout}");
    // A run: the line comes before the first round, and the page says it too.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("floor.csv");
    let tiny =
        ["--messages", "640", "--samples", "1", "--max-time", "0", "--warmup", "0", "--runtimes", "current-thread"];
    let (code, stdout, stderr) = run(asked.iter().chain(&tiny).chain(&["--out", out.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{stderr}");
    let (note, round) = (stdout.find(said), stdout.find("screening round 1"));
    assert!(note.is_some() && note < round, "{stdout}");
    for page in ["md", "html"] {
        let text = std::fs::read_to_string(out.with_extension(page)).unwrap();
        assert!(text.contains("1,024 slots in all, not 32"), "{page}: {text}");
    }
    // Asked per task, or a share each task's channel holds, nothing is said.
    for kept in [&["--task-capacity", "4"][..], &["--capacity", "1024"][..]] {
        let args = ["--tasks", "64", "--modes", "merged-recv", "--channels", "kanal", "--dry-run"];
        let (code, stdout, stderr) = run(args.iter().chain(kept));
        assert_eq!(code, Some(0), "{stderr}");
        assert!(!stdout.contains("in merged-recv at"), "{kept:?}: {stdout}");
    }
}

#[test]
fn a_batch_above_the_slots_is_said_with_the_largest_batch_measured() {
    let args = ["--tasks", "8", "--capacity", "32", "--batch", "1,256", "--channels", "kanal", "--dry-run"];
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, Some(0), "{stderr}");
    let said = "note: --batch 256 at 32 slots in cloned-send: measured with batches of at most 32 messages, what its \
                channels hold at once, not 256";
    assert!(stdout.contains(said), "{stdout}");
    // merged-recv's 8 channels of 16 slots hold 128: a batch of 256 is above them too.
    assert!(
        stdout.contains("note: --batch 256 at 32 slots in merged-recv: measured with batches of at most 128"),
        "{stdout}"
    );
    assert!(!stdout.contains("--batch 1 "), "{stdout}");
}
