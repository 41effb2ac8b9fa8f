"""Per-cell agreement of two runs of one command: `python3 named.py A.csv B.csv [BINARY]` (BINARY
defaults to target/release/channel-bench). Prints the ratio of the larger figure (trimmed mean,
ns/message) to the smaller, median / p90 / worst, over every cell both runs measured and over the
cells the answer names (each band's leader and runner-up in either run), and how often a cell's
90% confidence interval in one run holds the other run's figure."""
import json, subprocess, sys, statistics
B = sys.argv[3] if len(sys.argv) > 3 else "target/release/channel-bench"
def cells(csv):
    out = subprocess.run([B, "cells", csv, "--out", "-"], check=True, capture_output=True, text=True).stdout
    res = {}
    for c in json.loads(out)["cells"]:
        if c.get("ok", 0) > 0 and c.get("ns_per_message"):
            res[(c["runtime"], c["mode"], c["tasks"], c["channel"], c["capacity"])] = c
    return res
def named(csv):
    out = subprocess.run([B, "summary", csv, "--json"], check=True, capture_output=True, text=True).stdout
    keys = set()
    for b in json.loads(out)["bands"]:
        cap = list(b["capacity"].values())[0] if isinstance(b["capacity"], dict) else b["capacity"]
        for who in ("leader", "runner_up"):
            if b.get(who):
                for t in b["tasks"]:
                    keys.add((b["runtime"], b["mode"], t, b[who]["channel"], cap))
    return keys
a, b = cells(sys.argv[1]), cells(sys.argv[2])
both = a.keys() & b.keys()
def q(v, p): v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
def report(name, keys):
    r = [max(a[k]["ns_per_message"]["trimmed_mean"], b[k]["ns_per_message"]["trimmed_mean"]) /
         min(a[k]["ns_per_message"]["trimmed_mean"], b[k]["ns_per_message"]["trimmed_mean"]) for k in keys]
    print(f"{name}: {len(r)} cells, ratio median {statistics.median(r):.3f}, p90 {q(r, 0.9):.3f}, worst {max(r):.3f}")
report("all cells", both)
report("named cells", both & (named(sys.argv[1]) | named(sys.argv[2])))
held = 0; n = 0
for k in both:
    for x, y in ((a, b), (b, a)):
        iv = x[k]["ns_per_message"].get("trimmed_mean_interval")
        if iv and iv[0] is not None:
            n += 1; held += iv[0] <= y[k]["ns_per_message"]["trimmed_mean"] <= iv[1]
print(f"interval holds the other run's figure: {held} of {n} ({100*held/max(n,1):.1f}%)")
