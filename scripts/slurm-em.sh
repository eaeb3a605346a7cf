#!/bin/bash
# Map-reduce statistics and EM under Slurm, end to end: simulate discrete
# data, cut them into shards, compute their statistics as a job array of
# `latentree stats` merged by `stats merge` (must equal the statistics of all
# rows, byte for byte), and run K plain EM iterations as K rounds of a Slurm job array
# of `latentree fit --estep` (one task per shard) followed by
# `latentree fit --mstep`; then compare the final model with single-process
# plain EM (`fit --em-accel none`) run for the same iterations from the same
# start. Exits non-zero if the statistics differ or any parameter differs by
# more than 1e-9.
#
# Needs a running Slurm cluster (scripts/slurm-one-node.sh starts one on
# this machine), Go (to build latentree, unless LATENTREE names a binary)
# and python3 (the comparison). Settings (environment):
#   K=5 iterations, SHARDS=4, ROWS=20000, WORK=a new temporary directory
#   (it must be visible to the Slurm nodes: on a real cluster, a shared
#   file system), LATENTREE=path to a latentree binary.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${K:-5}
SHARDS=${SHARDS:-4}
ROWS=${ROWS:-20000}
WORK=${WORK:-$(mktemp -d /tmp/latentree-slurm-em.XXXXXX)}
mkdir -p "$WORK/logs"
chmod 0755 "$WORK"
T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }

BIN=${LATENTREE:-}
if [ -z "$BIN" ]; then
  BIN=$WORK/latentree
  go build -o "$BIN" ./cmd/latentree
fi
command -v sbatch >/dev/null || { echo "slurm-em: sbatch not found; start a cluster with scripts/slurm-one-node.sh" >&2; exit 1; }
echo "work directory $WORK; $K iterations over $SHARDS shards of $ROWS rows"

# 1. Data: a double star of 2 hidden and 10 observed 3-state variables.
"$BIN" simulate --topology double-star --leaves 5 --model symmetric --states 3 \
  -n "$ROWS" --seed 7 --out "$WORK/data.csv" --newick "$WORK/tree.nwk" >/dev/null
# 2. Shards: consecutive rows, each file with the header.
awk -v n="$SHARDS" -v rows="$ROWS" -v dir="$WORK" '
  NR == 1 { head = $0; next }
  { s = int((NR - 2) * n / rows); f = dir "/shard" s ".csv"
    if (!(f in seen)) { print head > f; seen[f] = 1 }
    print > f }' "$WORK/data.csv"
wc -l "$WORK"/shard*.csv | sed 's|'"$WORK"'/||'

# 2b. Statistics as map and reduce: a job array of `latentree stats` (one
# .lts file per shard), then `stats merge`; the merged file must equal the
# statistics of all rows, byte for byte (discrete data: counts only).
job=$(sbatch --parsable --wait --job-name stats --array=0-$((SHARDS - 1)) \
  -o "$WORK/logs/stats-%A_%a.out" \
  --wrap "\"$BIN\" stats \"$WORK/shard\${SLURM_ARRAY_TASK_ID}.csv\" --out \"$WORK/shard\${SLURM_ARRAY_TASK_ID}.lts\"") || {
  echo "slurm-em: the statistics job array failed; logs in $WORK/logs" >&2; exit 1; }
parts=()
for s in $(seq 0 $((SHARDS - 1))); do parts+=("$WORK/shard$s.lts"); done
"$BIN" stats merge "${parts[@]}" --out "$WORK/merged.lts" >/dev/null
"$BIN" stats "$WORK/data.csv" --out "$WORK/all.lts" >/dev/null
if ! cmp -s "$WORK/merged.lts" "$WORK/all.lts"; then
  echo "slurm-em: FAIL: the merged statistics of the shards differ from those of all rows" >&2; exit 1
fi
echo "statistics: Slurm job $job ($SHARDS tasks) and stats merge: $(wc -c <"$WORK/merged.lts") bytes, identical to the statistics of all rows"

# 3. The start, one plain EM iteration from the surrogate start (any model
# file will do: here it comes from all rows so that the reference can start
# from the same point), and the reference: the same start and K more.
"$BIN" fit --em-accel none --max-iter 1 "$WORK/tree.nwk" "$WORK/data.csv" --out "$WORK/m0.json" >/dev/null
"$BIN" fit --em-accel none --max-iter $((K + 1)) "$WORK/tree.nwk" "$WORK/data.csv" --out "$WORK/reference.json" |
  sed 's/^/single process: /'

# 4. K iterations: a job array of E-steps, then the M-step.
for it in $(seq 1 "$K"); do
  prev=$WORK/m$((it - 1)).json
  job=$(sbatch --parsable --wait --job-name "estep$it" --array=0-$((SHARDS - 1)) \
    -o "$WORK/logs/estep-%A_%a.out" \
    --wrap "\"$BIN\" fit --estep \"$prev\" \"$WORK/shard\${SLURM_ARRAY_TASK_ID}.csv\" --out \"$WORK/counts$it.\${SLURM_ARRAY_TASK_ID}.json\"") || {
    echo "slurm-em: the E-step job array of iteration $it failed; logs in $WORK/logs" >&2; exit 1; }
  counts=()
  for s in $(seq 0 $((SHARDS - 1))); do counts+=("$WORK/counts$it.$s.json"); done
  printf 'iteration %d: Slurm job %s (%d tasks), ' "$it" "$job" "$SHARDS"
  "$BIN" fit --mstep "$prev" "${counts[@]}" --out "$WORK/m$it.json" | sed "s|$WORK/||g"
done
echo "E-step task 0 of the last iteration said: $(sed "s|$WORK/||g" "$WORK"/logs/estep-"$job"_0.out)"

# 5. Compare the parameters with the single-process run.
python3 - "$WORK/reference.json" "$WORK/m$K.json" <<'EOF'
import json, sys
def params(path):
    out = {}
    for n in json.load(open(path))["nodes"]:
        out[n["name"]] = n.get("prior", []) + [x for row in n.get("cpt", []) for x in row]
    return out
ref, got = params(sys.argv[1]), params(sys.argv[2])
assert ref.keys() == got.keys(), "different nodes"
diff = max(abs(a - b) for k in ref for a, b in zip(ref[k], got[k], strict=True))
count = sum(len(v) for v in ref.values())
print(f"{count} parameters of {len(ref)} nodes: largest difference from single-process plain EM {diff:.3g}")
sys.exit(0 if diff <= 1e-9 else 1)
EOF
echo "slurm-em: PASS in $(elapsed)"
