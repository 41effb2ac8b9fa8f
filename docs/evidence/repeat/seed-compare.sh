#!/usr/bin/env bash
# Per-cell agreement between runs, ours against the seed's (PulseBeamDev/rust-channel-bench at
# ce1ea33), on the seed's cells: multi-thread cloned-send, 65,536 slots, 1,048,576 messages;
# tokio-mpsc, flume, async-channel, futures-channel; tasks 1,2,4,8,16,64,128,256,512.
# Three runs of each, alternated in one sitting (ours 1, seed 1, ours 2, seed 2, ours 3, seed 3).
#
# Usage: OURS=target/release/channel-bench SEED=/path/to/seed/target/release/channel-bench \
#        bash docs/evidence/repeat/seed-compare.sh [OUTDIR]
# Build the seed first: git clone https://github.com/PulseBeamDev/rust-channel-bench seed &&
#   cd seed && git checkout ce1ea33 && cargo build --release   (its binary is channel-bench too).
# EXTRA='--max-time 0.05' adds flags to ours (to trade duels for wall time; the default is ours as shipped).
set -euo pipefail
OURS=$(realpath "${OURS:?set OURS to our release binary}")
SEED=$(realpath "${SEED:?set SEED to the seed release binary built at ce1ea33}")
OUTDIR=${1:-seed-compare-$(date -u +%Y%m%dT%H%M%SZ)}
EXTRA=${EXTRA:-}
mkdir -p "$OUTDIR"
cd "$OUTDIR"

now() { date +%s.%N; }
for i in 1 2 3; do
  start=$(now)
  # shellcheck disable=SC2086
  "$OURS" --channels tokio-mpsc,flume,async-channel,futures-channel --modes cloned-send \
    --runtimes multi-thread --capacity 65536 --tasks 1,2,4,8,16,64,128,256,512 \
    $EXTRA --out "ours$i.csv" > "ours$i.txt" 2> "ours$i.err"
  end=$(now); echo "ours $i $(awk "BEGIN{print $end - $start}")" >> wall.txt
  # The sweep writes ours$i.cells.json beside its CSV: each cell's trimmed mean ns/message.
  start=$(now)
  "$SEED" > "seed$i.txt"
  end=$(now); echo "seed $i $(awk "BEGIN{print $end - $start}")" >> wall.txt
done

python3 - <<'EOF'
import json, math, re, itertools, statistics
SEED_NAMES = {"tokio": "tokio-mpsc", "flume": "flume", "async-channel": "async-channel",
              "futures-channel": "futures-channel"}
def ours(i):
    cells = {}
    for c in json.load(open(f"ours{i}.cells.json"))["cells"]:
        if (c["runtime"], c["mode"], c["capacity"]) != ("multi-thread", "cloned-send", 65536):
            continue
        figure = (c.get("ns_per_message") or {}).get("trimmed_mean")
        if figure:
            cells[(c["channel"], c["tasks"])] = figure
    return cells
def seed(i):
    cells, tasks = {}, None
    for line in open(f"seed{i}.txt"):
        m = re.match(r"# multi_thread,\s+tasks: (\d+),", line)
        if m:
            tasks = int(m.group(1)); continue
        m = re.match(r"cloned-send (\S+)\s+(\d+) ms\s+(\d+) ns/message", line)
        if m and tasks is not None:
            cells.setdefault((SEED_NAMES[m.group(1)], tasks), []).append(float(m.group(3)))
    # The seed prints four copies run side by side: its figure is their mean.
    return {key: statistics.mean(values) for key, values in cells.items()}
def agreement(runs):
    ratios = []
    for a, b in itertools.combinations(runs, 2):
        for key in sorted(set(a) & set(b)):
            ratios.append(max(a[key], b[key]) / min(a[key], b[key]))
    ratios.sort()
    p90 = ratios[math.ceil(0.9 * len(ratios)) - 1]  # nearest rank
    return len(ratios), statistics.median(ratios), p90, ratios[-1]
walls = {"ours": [], "seed": []}
for line in open("wall.txt"):
    who, _, seconds = line.split(); walls[who].append(float(seconds))
for who, load in (("ours", ours), ("seed", seed)):
    n, median, p90, worst = agreement([load(i) for i in (1, 2, 3)])
    print(f"{who}: per-cell ratio between runs over {n} cell pairs (36 cells x 3 pairs expected): "
          f"median {median:.2f} / p90 {p90:.2f} / worst {worst:.2f}; wall {', '.join(f'{w:.1f}' for w in walls[who])} s")
print(f"ours/seed wall time: {statistics.mean(walls['ours']) / statistics.mean(walls['seed']):.2f}x")
EOF
# The machine's readings and slow stretches of each of our runs, as the host noise line gives them.
grep -h "^host noise:" ours1.txt ours2.txt ours3.txt || true
