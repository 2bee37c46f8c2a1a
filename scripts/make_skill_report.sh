#!/usr/bin/env bash
# Regenerate reports/skill/ from fresh, resumable runs: the skill ladder and per-deal difficulty
# (`fisim ladder`), and whether expert's, tuned's and the planner's rankings of the standard island's
# 50 teams and of the 18 islands hold for a stronger player (`fisim compare --agreement expert,RANKER`,
# likewise tuned,RANKER and planner,RANKER).
#
#   scripts/make_skill_report.sh            the published size: levels novice..legendary x 2-4
#                                           players, GAMES games (default 300) per cell for the
#                                           ladder's policies (policies.LADDER) and clairvoyant:32;
#                                           the first DEALS deals (default 80) of each level and
#                                           player count replayed REPEATS times (default 20) by
#                                           REPLAYER (search:8); the 50 teams at Normal, TEAM_GAMES
#                                           games each (default 240), and the 18 islands at Normal with
#                                           3 players, ISLAND_GAMES games each (default 400), each played
#                                           by expert, tuned, planner and RANKER (search:8)
#   scripts/make_skill_report.sh --quick    a check of the whole pipeline: novice, 2 players, a few
#                                           games, three islands (written to OUT, default
#                                           reports/skill-quick, not committed)
#
# The page is fisim's own report of the three runs (`fisim report`): README.md in OUT, with its
# figures and its tables as data. Run it where fisim is installed (`fisim` on PATH), from anywhere.
# The stores go to STORES (default .report-stores/ in the repository, not committed), named by size
# and seed, so an interrupted run resumes where it stopped, and a policy that changed since (a new
# version of the planner) has only its own cells played again (--replay-changed), every other
# policy's games kept. Settings (environment): GAMES, DEALS, REPEATS, REPLAYER, TEAM_GAMES,
# ISLAND_GAMES, RANKER, SEED (default 2010), STORES, OUT, THREADS (default 2).
#
# Running time: reports/skill/README.md gives the wall-clock time of each part, summed over the runs
# that played into its store (kept in STORE.seconds beside it). Almost all of it is search (its speeds:
# docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."

SEED=${SEED:-2010}
RANKER=${RANKER:-search:8}
THREADS=${THREADS:-2}
if [[ "${1:-}" == "--quick" ]]; then
    SIZE=(--levels novice --players 2 --games 20 --deals 10 --repeats 3)
    TEAMS=(--levels novice --players 2 --teams all --games 6)
    ISLANDS=(--levels novice --players 2 --layouts standard,skull-island,bay-of-gulls --games 10)
    OUT=${OUT:-reports/skill-quick}
    NAME=quick
else
    GAMES=${GAMES:-300} DEALS=${DEALS:-80} REPEATS=${REPEATS:-20}
    SIZE=(--levels novice..legendary --players 2..4 --games "$GAMES" --deals "$DEALS" --repeats "$REPEATS")
    TEAMS=(--levels normal --players 2..4 --teams all --games "${TEAM_GAMES:-240}")
    ISLANDS=(--levels normal --players 3 --layouts all --games "${ISLAND_GAMES:-400}")
    OUT=${OUT:-reports/skill}
    NAME=full-$GAMES-${DEALS}x$REPEATS
fi
STORES=${STORES:-.report-stores}
store="$STORES/skill-$NAME-seed$SEED"
mkdir -p "$STORES"
record_seconds() {   # record_seconds FILE START: add the seconds since START to FILE's count, print the sum
    local total=$(( $(cat "$1" 2>/dev/null || echo 0) + SECONDS - $2 ))
    echo "$total" > "$1"
    echo "$total"
}
timed() {   # timed LABEL STORE COMMAND...: run it, add "LABEL N min" to the running times: the
            # seconds of every run that played into STORE, kept beside it in STORE.seconds (an
            # interrupted or failed run's seconds are kept too, for the run that resumes it)
    local start=$SECONDS spent="$2.seconds" total status=0
    trap 'record_seconds "$spent" "$start" > /dev/null; exit 130' INT
    trap 'record_seconds "$spent" "$start" > /dev/null; exit 143' TERM
    "${@:3}" || status=$?
    trap - INT TERM
    total=$(record_seconds "$spent" "$start")
    [[ $status == 0 ]] || exit "$status"
    times+=("$1 $(( (total + 30) / 60 )) min")
}
times=()

timed "ladder and deals" "$store" fisim ladder "${SIZE[@]}" --replayer "${REPLAYER:-search:8}" --seed "$SEED" --out "$store" \
    --threads "$THREADS" --replay-changed --quiet > /dev/null
for part in teams islands; do
    declare -n options=${part^^}
    timed "$part" "$store-$part" fisim sweep "${options[@]}" --policies "expert,tuned,planner,$RANKER" --seed "$SEED" --out "$store-$part" \
        --threads "$THREADS" --replay-changed --quiet --no-report > /dev/null
done

printf -v minutes '%s, ' "${times[@]}"
rm -rf "${OUT:?}"
fisim report "$store" "$store-teams" "$store-islands" --out "$OUT" --format md,png,csv \
    --title "Skill and luck in Forbidden Island" \
    --agreement "expert,$RANKER" --agreement "tuned,$RANKER" --agreement "planner,$RANKER" --baseline expert --disjoint \
    --note "How much of the game is skill and how much is the deal, and do the published conclusions hold for a \
stronger player? Generated by \`scripts/make_skill_report.sh\` (master seed $SEED). Wall-clock time of each part, \
summed over the runs that played into its store (a store begun from another run's copy counts only what was played \
since): ${minutes%, }. The tables as data are in tables/ beside this page." \
    --note "The published reports rank teams and islands by a heuristic's win rates. Here the same cells are played \
again by $RANKER on the same deals, and expert's, tuned's and the planner's rankings each compared with $RANKER's (a \
policy to publish by must rank at least as alike as expert does: the difference of the two correlations, paired on \
the same resamples of the same games). On the same deals, a ranker that plays expert's options (search over expert) \
wins and loses many of the games expert does, which lifts their correlation; on disjoint deals ($RANKER ranking by \
the second half of each cell's games, the others by the first) that shared noise is gone." > /dev/null
mv "$OUT/report.md" "$OUT/README.md"        # the page a repository shows for the folder
echo "skill report: $OUT (${times[*]})" >&2
