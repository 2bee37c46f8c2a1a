#!/usr/bin/env bash
# Regenerate reports/skill/ (the skill ladder and per-deal difficulty, `fisim ladder`) from a fresh,
# resumable run.
#
#   scripts/make_skill_report.sh            the published size: 4 levels x 2-4 players, GAMES games
#                                           (default 2,000) per cell for random, passive, greedy,
#                                           expert, search:8, search:32 and clairvoyant:32; the first
#                                           DEALS deals (default 500) of each level and player count
#                                           replayed REPEATS times (default 20) by REPLAYER (search:8)
#   scripts/make_skill_report.sh --quick    a check of the whole pipeline: novice, 2 players,
#                                           20 games, 10 deals replayed 3 times (written to
#                                           OUT, default reports/skill-quick, not committed)
#
# Run it where fisim is installed (`fisim` on PATH), from anywhere. The stores go to STORES (default
# .report-stores/ in the repository, not committed), named by size and seed, so an interrupted run
# resumes where it stopped. Settings (environment): GAMES, DEALS, REPEATS, REPLAYER, SEED (default
# 2010), STORES, OUT, LADDER_ARGS (extra `fisim ladder` options, e.g. "--threads 2").
#
# Running time on a 2-core machine shared with other jobs, compile cache warm:
#   --quick: 140 ladder games (20 each of 7 policies) and 30 replays: measured 27 s (18 s of processor).
#   full size: 12 cells x 2,000 games x 7 policies = 168,000 ladder games, and 12 x 500 x 20 =
#   120,000 replays by search:8. The search games dominate: 24,000 games each of search:8, search:32
#   and clairvoyant:32, and the 120,000 replays. At the speeds README "How strong is the computer
#   team?" gives (games per second of processor time: search:8 5.3, search:32 3.5; the clairvoyant
#   about as search:32), 144,000 / 5.3 + 48,000 / 3.5 = 40,900 processor seconds: about 6 hours on
#   2 cores. Not yet run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--quick" ]]; then
    SIZE=(--levels novice --players 2 --games 20 --deals 10 --repeats 3)
    OUT=${OUT:-reports/skill-quick}
    NAME=quick
else
    SIZE=(--levels novice..legendary --players 2..4 --games "${GAMES:-2000}" --deals "${DEALS:-500}"
          --repeats "${REPEATS:-20}")
    OUT=${OUT:-reports/skill}
    NAME=full-${GAMES:-2000}-${DEALS:-500}x${REPEATS:-20}
fi
SEED=${SEED:-2010}
STORES=${STORES:-.report-stores}
read -r -a EXTRA <<< "${LADDER_ARGS:-}"
store="$STORES/skill-$NAME-seed$SEED"
mkdir -p "$STORES"
start=$SECONDS

fisim ladder "${SIZE[@]}" --replayer "${REPLAYER:-search:8}" --seed "$SEED" --out "$store" --quiet \
    "${EXTRA[@]}" > /dev/null
rm -rf "${OUT:?}"
mkdir -p "$OUT"
cp "$store"/ladder.md "$store"/*.csv "$store"/*.png "$OUT"/
echo "skill report: $OUT ($((SECONDS - start)) s)" >&2
