"""How many bands a run had decided by each point of its duels: `python3 decided-by-time.py
X.csv [BINARY] [STEPS]` (BINARY defaults to target/release/channel-bench, STEPS to 10). Cuts the
CSV after its first N rows, for STEPS values of N from the end of screening to the whole run, and
prints for each the seconds its samples had taken and the bands decisive in `summary` of those
rows (decisive as `docs/evidence/host-state-trial/aa-verdicts.py` counts it: the leader
separated from the runner-up, or tied with it within 10% on current-thread, 15% on
multi-thread). Screening ends where every cell has had its first two samples."""
import csv
import importlib.util
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("aa_verdicts", os.path.join(here, "..", "host-state-trial", "aa-verdicts.py"))
verdicts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(verdicts)

source = sys.argv[1]
binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/channel-bench"
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 10
with open(source) as f:
    header, *lines = f.read().splitlines()
rows = list(csv.DictReader(open(source)))
key = lambda row: tuple(row[k] for k in ("channel", "mode", "runtime", "tasks", "capacity", "batch", "record_bytes"))
seen, screened, seconds = {}, 0, []
for at, row in enumerate(rows):
    seen[key(row)] = seen.get(key(row), 0) + 1
    if seen[key(row)] <= 2:
        screened = at + 1
    seconds.append((seconds[-1] if seconds else 0.0) + float(row["elapsed_ns"] or 0) / 1e9)
with tempfile.TemporaryDirectory() as scratch:
    for step in range(steps + 1):
        n = screened + (len(rows) - screened) * step // steps
        cut = os.path.join(scratch, f"first-{n}.csv")
        with open(cut, "w") as f:
            f.write("\n".join([header, *lines[:n]]) + "\n")
        bands = verdicts.answer(binary, cut)
        decided = sum(verdicts.decisive(band[0], runner_up) for band, (_, runner_up, _) in bands.items())
        print(f"{n} rows, {seconds[n - 1]:.0f} s of samples ({seconds[n - 1] - seconds[screened - 1]:.0f} s past screening): "
              f"{decided} of {len(bands)} bands decisive")
