#!/usr/bin/env bash
# Regenerate the published balance reports in reports/ from fresh sweeps.
#
#   reports/balance/   the standard island: all 50 teams (15 of 2, 20 of 3, 15 of 4 adventurers)
#                      x 4 levels, TEAM_GAMES games each (default 10,000: 150,000-200,000 games
#                      per level and player count)
#   reports/layouts/   the 18 built-in islands x 4 levels x 2-4 players, random teams,
#                      LAYOUT_GAMES games per cell (default 20,000), each against the standard island
#   reports/rules/     each rule switch against the official rules, 4 levels x 2-4 players (solo:
#                      1 player), random teams, RULE_GAMES games per cell (default 50,000)
#   reports/README.md  the index
#
# The policy is the published one (policies.PUBLISHED) with expert's games beside it on the same
# deals (each report's policy comparison, paired) unless POLICY says otherwise; POLICY=tuned,expert
# publishes tuned's numbers with expert's beside them. Run it where fisim is installed (`fisim` and
# `python` on PATH), from anywhere. The sweeps' stores go to STORES (default .report-stores/ in the
# repository, not committed), one per report, named by policy and size, so an interrupted run
# resumes where it stopped and a new policy starts afresh (scripts/compare_versions.py OLD NEW then
# pairs the policy's two versions over each report's deals). Figures are PNG; the self-contained
# HTML of each report is left in its store (STORES/<name>/report/).
#
# Each report then checks its headline conclusions under stronger players on samples of the same
# deals (`fisim report --stronger`, docs/cli.md: a section "Would a stronger team agree?" each, a
# conclusion that does not hold flagged in At a glance), their games in STORES/<name>/stronger/.
#
# Settings (environment): POLICY, TEAM_GAMES, LAYOUT_GAMES, RULE_GAMES, SEED (default 2010),
# CHUNK (games per chunk, default 50,000), STORES, OUT (default reports), and SWEEP_ARGS for
# extra `fisim sweep` options (e.g. "--threads 2" or "--scheduler tcp://host:8786"); CHECKS, the
# checks as POLICY=GAMES (the games per win rate a conclusion compares), space-separated
# (default: search:8 over the published policy on 200, and deep, as strong as search:8 over the
# planner and about a hundred times faster a game, on 4,000; "" leaves them out), and
# STRONGER_ARGS for extra options of the checks (e.g. "--threads 2").
#
# Running time: 12.5 million games per policy POLICY lists at full size, so about 12.5 million / (the
# policy's games per second, scripts/bench.py) plus a minute of overhead; a tiny run (policy random,
# TEAM_GAMES=100 LAYOUT_GAMES=200 RULE_GAMES=500) is mostly per-chunk and report overhead.
# docs/benchmarks.md has the measured runs. Each report's time is printed as it finishes. The check
# adds games of the stronger players, search hundreds of times slower a game: each report's section
# states what its check cost (docs/strength.md gives the published reports').
set -euo pipefail
cd "$(dirname "$0")/.."

POLICY=${POLICY:-$(python -c 'import policies; print(policies.PUBLISHED)'),expert}
TEAM_GAMES=${TEAM_GAMES:-10000}
LAYOUT_GAMES=${LAYOUT_GAMES:-20000}
RULE_GAMES=${RULE_GAMES:-50000}
SEED=${SEED:-2010}
CHUNK=${CHUNK:-50000}
STORES=${STORES:-.report-stores}
OUT=${OUT:-reports}
PUBLISHED=${POLICY%%,*}
DEFAULT_CHECKS="search:8/$PUBLISHED=200"
[ "$PUBLISHED" = deep ] || DEFAULT_CHECKS+=" deep=4000"
read -r -a CHECKS <<< "${CHECKS-$DEFAULT_CHECKS}"
read -r -a EXTRA <<< "${SWEEP_ARGS:-}"
read -r -a CHECK_EXTRA <<< "${STRONGER_ARGS:-}"

LABELS=$(python -c "from policies import load_policy; print(','.join(f'{p.NAME}@{p.VERSION}' for p in map(load_policy, '$POLICY'.split(','))))")
LABEL=${LABELS%%,*}     # the policy published; the others are compared with it
BESIDE=${LABELS#"$LABEL"}
BESIDE_NOTE=${BESIDE:+" (with ${BESIDE#,} on the same deals beside it: each report's policy comparison)"}
LEVELS=novice..legendary
fmt() { python -c "print(f'{int($1):,}')"; }
CHECK_NOTE="" UNDER=""
for check in "${CHECKS[@]}"; do
    UNDER+="${UNDER:+, }${check%=*} ($(fmt "${check##*=}") games per win rate)"
done
if [ -n "$UNDER" ]; then
    CHECK_NOTE="Each report checks its headline conclusions under stronger players, $UNDER, on samples of
the same deals (a section \"Would a stronger team agree?\" each; a conclusion that does not hold is
flagged in its At a glance). "
fi
mkdir -p "$STORES" "$OUT"
start=$SECONDS

# One report: sweep into its store (resumable), check its conclusions under each stronger player (their
# stores beside the sweep's, resumable), then write the Markdown and PNG figures into OUT/name and the
# HTML beside the store.
report() {
    local name=$1 games=$2 title=$3
    shift 3
    local store="$STORES/$name-${LABELS//,/+}-$games-seed$SEED"
    local t0=$SECONDS
    echo "== $name: $title ($games games per cell, policy $LABELS)" >&2
    fisim sweep --levels "$LEVELS" --policies "$POLICY" --games "$games" --seed "$SEED" \
        --chunk-games "$CHUNK" --out "$store" --no-report --quiet "${EXTRA[@]}" "$@" > /dev/null
    for check in "${CHECKS[@]}"; do
        fisim report "$store" --format csv --stronger "${check%=*}" --stronger-games "${check##*=}" \
            "${CHECK_EXTRA[@]}" > /dev/null
    done
    rm -rf "${OUT:?}/$name"
    fisim report "$store" --out "$OUT/$name" --format md,png --title "$title" > /dev/null
    fisim report "$store" --format html --title "$title" > /dev/null
    echo "   done in $((SECONDS - t0)) s" >&2
}

report balance "$TEAM_GAMES" "Forbidden Island balance: the standard island, every team, every level" \
    --layouts standard --players 2..4 --teams all --rules official
report layouts "$LAYOUT_GAMES" "Forbidden Island balance: the 18 islands compared with the standard island" \
    --layouts all --players 2..4 --teams random --rules official
report rules "$RULE_GAMES" "Forbidden Island balance: rule readings compared with the official rules" \
    --layouts standard --players 1..4 --teams random --rules all

cat > "$OUT/README.md" <<EOF
# Published balance reports

How hard is Forbidden Island? Each report below is a fisim sweep turned into figures and tables,
every rate with its 95% confidence interval. The games were played by the computer team, policy
**$LABEL**$BESIDE_NOTE:
the win rates are that program's, not a human team's. They show how the game's settings compare
with each other.

- [The standard island](balance/report.md): win rate by level and player count, all 50 teams of
  adventurers ranked, how games end and how long they last ($(fmt "$TEAM_GAMES") games per
  team and level).
- [The 18 islands](layouts/report.md): each built-in layout against the standard island, game by
  game ($(fmt "$LAYOUT_GAMES") games per layout, level and player count).
- [Rule readings](rules/report.md): each rule switch against the official rules, game by game
  ($(fmt "$RULE_GAMES") games per variant, level and player count).

${CHECK_NOTE}Regenerate them all with \`scripts/make_reports.sh\` (its header gives the running time and
the settings); master seed $SEED.
EOF
if [ -f "$OUT/skill/README.md" ]; then       # written by make_skill_report.sh; its summary, as it says it
    {
        echo
        echo "- [Skill and luck](skill/README.md): the skill ladder (every policy and the clairvoyant reference"
        echo "  on the same deals), per-deal difficulty, and whether the rankings of teams and islands hold for"
        echo "  a stronger player; written by \`scripts/make_skill_report.sh\`. In short:"
        grep '^- At ' "$OUT/skill/README.md" | sed 's/^/  /'     # its summary's lines, one per level
    } >> "$OUT/README.md"
fi
echo "reports written to $OUT in $((SECONDS - start)) s" >&2
