"""A design as the terminal shows it: what was asked, how the search ended, the answer's curve on
the search's and on fresh deals, how its games feel, the best candidates, and the files written;
every number written by fisim.formatting."""
import math
from pathlib import Path

from fisim.designing.constraints import FEEL
from fisim.designing.race import window_verdict
from fisim.formatting import count, interval, percent, plural, points, window
from fisim.stats import wins_interval


def format_design(design, out):
    """The design as text (see the module)."""
    plan, goal, result = design.plan, design.plan.goal, design.race
    answer = design.answer
    searched, fresh = result.readings[answer], design.verified[answer]
    axes = ", ".join(f"{k} {_span(v)}" for k, v in plan.axes)
    windows = "".join(f", {FEEL[n].name.replace('_', ' ')} {window(*w)}" for n, w in goal.windows)
    lines = [f"design: {plural(len(plan.candidates), 'candidate')} ({axes}) toward "
             + ", ".join(f"{level} {percent(rate, 1)}" for level, rate in goal.targets)
             + f" (within {points(goal.tolerance, 1, signed=False)} points{windows}); {goal.players_label}, team "
             f"{plan.setting['team']}, {plan.setting['layout']}, policy {plan.setting['policy']}, rules "
             f"{plan.setting['rules']}, seed {plan.seed}"
             + (f"; {count(plan.unplayable)} tuples the rules cannot play left out" if plan.unplayable else "")]
    most = max(r["most"] for r in result.rounds)
    lines.append(f"search: {plural(len(result.rounds), 'round')}, {count(len(result.readings))} of "
                 f"{plural(len(plan.candidates), 'candidate')} played, 100 to {count(most)} games per cell, "
                 f"{count(result.games)} games; {design.record['outcome']['verdict']}")
    numbers, steps = answer.change
    lines.append(f"answer: {answer.label}" + (f" ({plural(numbers, 'number')} changed, {plural(steps, 'step')})"
                                              if numbers else " from the base rules"))
    lines.append(f"  {'level':<22}{'target':>7}   {'search (' + count(searched.games) + ' games)':<25}"
                 f"fresh deals ({count(fresh.games)} games, seed {plan.verify_seed})")
    for m in goal.measures:
        s_low, s_high = wins_interval(searched.values[m])
        low, high = wins_interval(fresh.values[m])
        lines.append(f"  {goal.label(m):<22}{percent(goal.target(m), 1):>7}   "
                     f"{percent(searched.rate[m], 1) + ' (' + interval(s_low, s_high, 1, '-', '%') + ')':<25}"
                     f"{percent(fresh.rate[m], 1)} ({interval(low, high, 1, '-', '%')}), "
                     f"miss {points(fresh.rate[m] - goal.target(m), 1)}")
    within = "within" if fresh.excess == 0 else "NOT within"
    lines.append(f"  largest miss on fresh deals: {points(fresh.largest_miss, 1, signed=False)} points "
                 f"({goal.label(fresh.worst)}): {within} {points(goal.tolerance, 1, signed=False)} points of every "
                 "target")
    lines.append(f"  how it feels (fresh deals): {feel_words(fresh.summary)}")
    if goal.windows:
        lines.append(f"  constraints (fresh deals, 95%): {window_words(fresh, goal)}")
    lines.append("best candidates (search; fresh deals):")
    lines.append(f"  {'rank':>4}  {'changes':<44}{'games':>8}  {'largest miss':<20}{'fresh deals':<20}"
                 f"{'turns':>7}{'close wins':>12}")
    for rank, c in enumerate(result.ranked[:plan.best], 1):
        r, v = result.readings.get(c), design.verified.get(c)
        if r is None or v is None:
            continue
        lines.append(f"  {rank:>4}  {c.label:<44}{count(r.games):>8}  "
                     f"{points(r.largest_miss, 1, signed=False) + ' (' + goal.label(r.worst) + ')':<20}"
                     f"{points(v.largest_miss, 1, signed=False) + ' (' + goal.label(v.worst) + ')':<20}"
                     f"{v.summary['mean_turns']:>7.1f}{percent(v.summary['close_any_share'], 0):>12}")
    lines.append(f"{count(design.asked)} games ({count(design.played)} played now, "
                 f"{count(design.asked - design.played)} reused from the stores). Win rates are the computer team's.")
    lines.append(f"files: {Path(out) / 'best.toml'} (the answer as a variant file), design.json, candidates.csv/.json, "
                 "curves.csv/.json, report/report.html")
    return "\n".join(lines)


def feel_words(summary):
    """How a candidate's games feel, in a line: game length, close wins, and where traced drama and
    decisiveness."""
    words = [f"games last {summary['mean_turns']:.1f} player turns (sd {summary['sd_turns']:.1f})",
             f"{percent(summary['close_any_share'], 0)} of wins came close"]
    if not math.isnan(summary["lost_mean_treasures"]):
        words.append(f"a lost game held {summary['lost_mean_treasures']:.1f} treasures")
    if summary["traced"] and not math.isnan(summary["drama"]):
        words.append(f"a won game's chance fell to {percent(summary['drama'], 0)} at its lowest (drama)")
    if summary["traced"] and not math.isnan(summary["decided_round"]):
        words.append(f"decided from round {summary['decided_round']:.1f}")
    return "; ".join(words)


def window_words(reading, goal):
    """Each constraint of `goal` as a Reading measures it: the estimate, its interval, the window
    and whether the interval is within it (met), outside it (broken) or across an end (open)."""
    words = []
    for name, (low, high) in goal.windows:
        estimate, bottom, top = reading.feel[name]
        words.append(f"{name.replace('_', ' ')} {estimate:.2f} [{bottom:.2f}, {top:.2f}] {window(low, high)}: "
                     f"{window_verdict(reading.feel[name], low, high)}")
    return "; ".join(words)


def _span(values):
    values = list(values)
    return f"{values[0]}..{values[-1]}" if len(values) > 1 else str(values[0])

