#!/usr/bin/env bash
# One command of few cells run on a free host and beside a neighbour that keeps both cores of a
# 2-core VM busy, alternated twice: free1, busy1, free2, busy2 (CSV and JSON each).
#
#   B=target/release/channel-bench NN=noisy-neighbour bash docs/evidence/busy/pair.sh OUTDIR
set -euo pipefail
B=${B:-target/release/channel-bench}
NN=${NN:-noisy-neighbour}
OUT=${1:?give the folder to write the runs to}
mkdir -p "$OUT"
command=(--tasks 64 --capacity 4096 --record-bytes 256 --batch 1,256 --modes cloned-send
  --runtimes multi-thread,current-thread)
for i in 1 2; do
  "$B" "${command[@]}" --out "$OUT/free$i.csv" > "$OUT/free$i.txt" 2>&1
  "$NN" --duty 0.9 --threads 2 --seed "$i" -- "$B" "${command[@]}" --out "$OUT/busy$i.csv" > "$OUT/busy$i.txt" 2>&1
done
