"""A design's report (`fisim design`, or `fisim report` of a design's folder): the target curve and
each verified candidate's curve on fresh deals with their 95% intervals, what each changes from the
base rules, how each one's games feel, and how the search went; At a glance names the answer (or
says the search is not settled, or the target out of reach, with the closest). It reads the files
the design wrote (design.json, candidates.csv, curves.csv, arcs.csv), never its games."""
import json
import math
from pathlib import Path

import pandas as pd

from fisim.designing.constraints import FEEL, SUMMARY
from fisim.formatting import count, percent, plural, points, rate_bracket, window
from fisim.reporting import figures
from fisim.reporting.document import Column, Report, Section, Spread, Table


def is_design(directory):
    """Whether `directory` is a design's folder: it holds design.json."""
    return (Path(directory) / "design.json").exists()


def build(directory, title=None):
    """The Report of the design in `directory`."""
    directory = Path(directory)
    record = json.loads((directory / "design.json").read_text())
    candidates = pd.read_csv(directory / "candidates.csv")
    curves = pd.read_csv(directory / "curves.csv", dtype={"players": str})
    request, outcome = record["request"], record["outcome"]
    fresh = curves[curves["phase"] == "verify"]
    verified = candidates[candidates["verified"]]
    subtitle = (f"{_players(request)}, team {request['team']}, {request['layout']}, policy {request['policy']}, "
                f"{count(record['request']['verify_games'])} fresh games per level and player count (seed "
                f"{request['verify_seed']}); the computer team's rates")
    arcs = pd.read_csv(directory / "arcs.csv", dtype={"players": str}) if (directory / "arcs.csv").exists() else None
    sections = [_curve(request, fresh, subtitle), _changes(request, candidates, outcome),
                _feel(request, verified, arcs, subtitle), _search(record)]
    return Report(title or "Design: rule numbers toward a difficulty curve",
                  f"fisim design raced {plural(outcome['candidates'], 'candidate')} on the same deals and verified "
                  f"the best {len(verified)} on fresh ones. Every rate carries its 95% confidence interval.",
                  _overview(record), glance(record, verified, fresh), [], sections, [directory.resolve().name],
                  "The design")


def _players(request):
    counts = ", ".join(map(str, request["players"]))
    if len(request["players"]) == 1:
        return f"{counts} players"
    return f"{counts} players {'pooled' if request['pooled'] else 'each'}"


def _targets(request):
    return ", ".join(f"{level} {percent(rate, None)}" for level, rate in request["targets"].items())


def _overview(record):
    request, outcome = record["request"], record["outcome"]
    sets = ", ".join(f"{k} {v[0]}..{v[-1]}" if len(v) > 1 else f"{k} {v[0]}" for k, v in request["sets"].items())
    base = ", ".join(f"{k} {v}" for k, v in request["base"].items())
    constraints = _constraints(request)
    rows = [("Targets", f"{_targets(request)}, each within {points(request['tolerance'], 1, signed=False)} points"),
            ("Numbers", f"{sets} ({plural(outcome['candidates'], 'candidate')}"
                        + (f"; {count(outcome['unplayable'])} tuples the rules cannot play left out"
                           if outcome["unplayable"] else "") + ")"),
            ("Base rules", f"{request['rules']} ({base})"),
            ("Setting", f"{_players(request)}, team {request['team']}, {request['layout']}, "
                        f"policy {request['policy']}")]
    if constraints:
        rows.append(("Constraints", constraints))
    return rows + [
        ("Search", f"{count(outcome['search_games'])} games in {plural(len(outcome['rounds']), 'round')}, "
                   f"{count(outcome['played'])} candidates played (seeds {request['seed']} and "
                   f"{request['race_seed']})"),
        ("Verification", f"the best {request['best']} on {count(request['verify_games'])} fresh games per level and "
                         f"player count (seed {request['verify_seed']})"),
        ("Versions", f"fisim {record['fisim_version']}")]


def glance(record, verified, fresh):
    """At a glance: the answer and the verdict, its curve on fresh deals, how its games feel."""
    request, outcome = record["request"], record["outcome"]
    answer = verified.iloc[0]
    verdict = outcome["verdict"]
    if outcome["reached"] == "unreachable":
        lines = [f"Target out of reach: no candidate reaches {_targets(request)}; the closest, {answer['changes']}, "
                 f"misses by {points(answer['largest_miss'], 1, signed=False)} points ({answer['worst']})."]
    elif not outcome["settled"]:
        lines = [f"The best estimate: {answer['changes']} (the search is not settled)."]
    else:
        lines = [f"The answer: {answer['changes']}."]
    lines.append(verdict[0].upper() + verdict[1:] + ".")
    mine = fresh[fresh["rank"] == answer["rank"]]
    several = len(request["players"]) > 1 and not request["pooled"]
    rates = "; ".join(f"{_measure(r, several)} {rate_bracket(r['rate'], r['ci_low'], r['ci_high'])} (target "
                      f"{percent(r['target'], None)})" for _, r in mine.iterrows())
    within = "within" if answer["verified_within_tolerance"] else "not within"
    lines.append(f"On fresh deals it wins {rates}: its largest miss is "
                 f"{points(answer['verified_largest_miss'], 1, signed=False)} points ({answer['verified_worst']}), "
                 f"{within} the tolerance of every target.")
    lines.append(f"How it feels: {_feel_words(answer)}.")
    return lines


def _measure(row, several):
    return f"{row['level']} ({row['players']} players)" if several else row["level"]


def _feel_words(row, prefix="verified_"):
    words = [f"games last {row[prefix + 'mean_turns']:.1f} player turns",
             f"{percent(row[prefix + 'close_any_share'], 0)} of wins came close"]
    if row[prefix + "traced"] and not math.isnan(row[prefix + "drama"]):
        words.append(f"a won game's chance of winning fell to {percent(row[prefix + 'drama'], 0)} at its lowest")
    return ", ".join(words)


def _curve(request, fresh, subtitle):
    measures = list(dict.fromkeys(zip(fresh["level"], fresh["players"])))
    labels = [(level if not str(players).isdigit() or len(request["players"]) == 1 else f"{level}\n{players}p",
               level, players) for level, players in measures]
    targets = [request["targets"][level] for level, _ in measures]
    names = list(dict.fromkeys(fresh["changes"]))
    table = fresh[["rank", "candidate", "changes", "level", "players", "games", "rate", "ci_low", "ci_high", "target",
                   "miss"]]
    return Section(
        "design-curve", "The target curve and each candidate's",
        "The win rate wanted at each level (the dashed line; the grey band is the tolerance) and the best candidates' "
        "win rates on fresh deals, games the search never played, each with its 95% interval. The first is the "
        "answer.",
        subtitle, figures.design_curves(fresh, labels, targets, request["tolerance"], subtitle),
        [Table("design-curves", "Win rate per level on fresh deals (95% CI), beside the target", table,
               [Column("Level", lambda r: r["level"], words=True),
                *([Column("Players", lambda r: r["players"], words=True)] if len(request["players"]) > 1 else []),
                Column("Target", lambda r: percent(r["target"], 1)),
                Spread("changes", names, lambda r: rate_bracket(r["rate"], r["ci_low"], r["ci_high"]),
                       on=("level", "players"))],
               per=("level", "players"))])


def _changes(request, candidates, outcome):
    played = candidates[candidates["games"] > 0]
    shown = played.head(max(request["best"], 10))
    left = len(candidates) - len(played)
    return Section(
        "design-changes", "What each candidate changes",
        "The candidates played, best first: which rule numbers each changes from the base rules and by how many steps "
        "(the smaller change comes first among those within the tolerance of every target), how it left the race, "
        "its games per level and player count, and its largest miss from the targets in the search and, for the "
        "verified, on fresh deals."
        + (f" {plural(left, 'candidate')} of the grid never played: a smaller change fits, or the search ended "
           "first." if left else ""),
        f"{plural(outcome['candidates'], 'candidate')}; the {len(shown)} best played shown; every one in "
        "candidates.csv.", None,
        [Table("design-candidates", "What each candidate changes, and how close it comes", shown[
            ["rank", "candidate", "changes", "numbers_changed", "steps", "status", "left_as", "games", "largest_miss",
             "worst", "verified_largest_miss", "verified_worst"]],
            [Column("Rank", lambda r: str(r["rank"])), Column("Changes", lambda r: r["changes"], words=True),
             Column("Numbers, steps", lambda r: f"{r['numbers_changed']}, {r['steps']}"),
             Column("Status", lambda r: r["status"] if pd.isna(r["left_as"]) else f"out: {r['left_as']}",
                    words=True),
             Column("Games", lambda r: count(r["games"])),
             Column("Largest miss (search)", lambda r: f"{points(r['largest_miss'], 1, signed=False)} ({r['worst']})"),
             Column("Largest miss (fresh deals)", lambda r: "–" if pd.isna(r["verified_largest_miss"]) else
                    f"{points(r['verified_largest_miss'], 1, signed=False)} ({r['verified_worst']})")])])


def _constraints(request):
    """The design's constraints in words: 'drama at most 0.5; turns 10 to 20'."""
    return "; ".join(f"{name.replace('_', ' ')} {window(low, high)}"
                     for name, (low, high) in request["constraints"].items())


def _answer_arcs(arcs, request, subtitle):
    """The answer's typical arc of the win chance on fresh deals, per level and player count (its
    traced games), or None when none was traced."""
    if arcs is None or arcs.empty or not (arcs["rank"] == 1).any():
        return None
    mine = arcs[arcs["rank"] == 1].assign(players=lambda f: f["players"].astype(int))
    return figures.win_chance_arcs(mine, list(request["targets"]), f"the answer, {mine['changes'].iloc[0]} · "
                                   f"{subtitle}")


def _feel(request, verified, arcs, subtitle):
    columns = list(dict.fromkeys([*SUMMARY, *(f"{name}{end}" for name in FEEL for end in ("", "_low", "_high"))]))
    table = verified[["rank", "candidate", "changes", *(f"verified_{c}" for c in columns)]].rename(
        columns=lambda c: c.removeprefix("verified_"))
    drama = table["traced"].fillna(0).gt(0).any()

    def interval(name, digits):
        def text(r):
            if pd.isna(r[name]):
                return "–"
            if name in ("drama", "decided"):        # a chance, a share of the game: percentages
                return rate_bracket(r[name], r[f"{name}_low"], r[f"{name}_high"], 0)
            return f"{r[name]:.{digits}f} [{r[f'{name}_low']:.{digits}f}, {r[f'{name}_high']:.{digits}f}]"
        return text
    shown = [Column("Changes", lambda r: r["changes"], words=True),
             Column("Player turns (sd)", lambda r: f"{r['mean_turns']:.1f} ({r['sd_turns']:.1f})"),
             Column("Wins that came close", lambda r: percent(r["close_any_share"], 1)),
             Column("Treasures held, lost games", lambda r: f"{r['lost_mean_treasures']:.2f}")]
    if drama:
        shown += [Column("Drama (lowest chance, won games)", interval("drama", 0)),
                  Column("Decided from round", interval("decided_round", 1)),
                  Column("Decided after (share of the game)", interval("decided", 0))]
    constraints = _constraints(request)
    return Section(
        "design-feel", "How each candidate's games feel",
        "On the fresh deals: how long the games last (player turns, levels and player counts pooled, and the "
        "spread), the share of wins that came close (one step from the skull, a flooded Fools' Landing, or a treasure "
        "one flood card from lost), the treasures the team held in the games it lost"
        + (", and over the traced games the chance of winning: drama, its lowest in the games won, and the round "
           "from which it stayed on the side of the outcome (and that round's share of the game); the figure draws "
           "the answer's typical arc, its mean chance of winning against the share of the game played, per level, "
           "in the games won and lost" if drama else "")
        + "."
        + (f" The search held every candidate to {constraints}." if constraints else ""),
        f"{count(request['verify_games'])} fresh games per level and player count"
        + (f", the first {request['trace_games']} of each traced" if drama else "") + ".",
        _answer_arcs(arcs, request, subtitle) if drama else None,
        [Table("design-feel", "How each candidate's games feel on fresh deals (95% CI)", table, shown)])


def _search(record):
    request, outcome = record["request"], record["outcome"]
    rounds = pd.DataFrame([{"round": i, **r} for i, r in enumerate(outcome["rounds"], 1)])
    return Section(
        "design-search", "How the search went",
        f"{outcome['verdict'][0].upper()}{outcome['verdict'][1:]}. The search raced the candidates in order of change "
        "on the same deals: a group of one change enters when every candidate still hoping to fit has played 800 "
        "games per level and player count; each round plays every hoping candidate one look further (100, 200, 400, "
        "800, 1,800, 2,800, 4,800 ... games); a candidate leaves once it is shown to come after another, and once one "
        f"is shown to fit every larger change leaves unplayed. Each interval is at z = {outcome['z']:.2f}, the 5% "
        "error split over every interval a candidate may look at.",
        f"{count(outcome['search_games'])} games in the search; budget {count(request['budget'])}.", None,
        [Table("design-rounds", "The rounds of the search", rounds,
               [Column("Round", lambda r: str(r["round"])),
                Column("Candidates played", lambda r: count(r["candidates"])),
                Column("Entering", lambda r: count(r["entered"])),
                Column("Games per cell", lambda r: count(r["fewest"]) if r["fewest"] == r["most"]
                       else f"{count(r['fewest'])}–{count(r['most'])}"),
                Column("Games", lambda r: count(r["games"]))], markdown=False)])
