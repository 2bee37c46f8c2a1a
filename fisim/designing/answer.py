"""A design's answer: the race's order of the candidates and the verification's readings, as the
tables a designer reads (candidates, curves), the record of the request and outcome
(design.json, with the verdict in words), and the answer as a playable variant file (best.toml),
each written whole into the design's folder."""
import json
import math
from dataclasses import dataclass
from pathlib import Path

from fisim import defaults
from fisim.designing.constraints import FEEL, SUMMARY
from fisim.designing.race import CUT, LARGER, SHOWN
from fisim.files import atomic_write
from fisim.formatting import count, percent, plural, points, window
from fisim.rules.variant import PARAMETERS
from fisim.stats import wins_interval
from fisim.version import VERSION

DIGITS = 6              # the decimals the tables as data keep (no float noise)


@dataclass
class Design:
    """A design's outcome: its plan, the race, the Readings of the verified candidates on fresh
    deals and their games per cell, and the games played now and asked for in all (the rest reused
    from the stores). `candidates` and `curves` are its tables; `record` what design.json holds."""

    plan: object
    race: object
    verified: dict
    fresh_games: int
    played: int
    asked: int

    @property
    def answer(self):
        return self.race.ranked[0]

    @property
    def candidates(self):
        """One row per candidate, best first: its numbers and change, its status and where and why it
        left the race, its search estimates (each level's rate, the largest miss, the feel measures
        with their intervals, how its games feel) and, for the verified, the same on fresh deals."""
        import pandas as pd
        goal, result, rows = self.plan.goal, self.race, []
        for rank, c in enumerate(result.ranked, 1):
            left, why = result.dropped.get(c, (None, None))
            r = result.readings.get(c)
            row = {"rank": rank, "candidate": c.index, **dict(c.values), "changes": c.label,
                   "numbers_changed": c.change[0], "steps": c.change[1], "status": self.status(c),
                   "left_in_round": None if left is None else left + 1, "left_as": why,
                   "games": r.games if r else 0, **_reading(r, goal, ""), "fits_shown": bool(r and r.decided),
                   "verified": c in self.verified, **_reading(self.verified.get(c), goal, "verified_")}
            rows.append(row)
        frame = pd.DataFrame(rows)
        frame["left_in_round"] = frame["left_in_round"].astype("Int64")
        return frame

    def status(self, c):
        """'answer', 'in the race', 'out' or 'not played'."""
        if c is self.answer:
            return "answer"
        if c not in self.race.readings:
            return "not played"
        return "out" if c in self.race.dropped else "in the race"

    @property
    def curves(self):
        """One row per played candidate, phase (search, verify) and level (and player count): games,
        win rate and its 95% interval, target, miss, and how the games of its cells feel."""
        import pandas as pd
        goal, rows = self.plan.goal, []
        phases = (("search", self.plan.seed, self.race.readings), ("verify", self.plan.verify_seed, self.verified))
        for phase, seed, readings in phases:
            for rank, c in enumerate(self.race.ranked, 1):
                if c not in readings:
                    continue
                r = readings[c]
                for m in goal.measures:
                    low, high = wins_interval(r.values[m])
                    feel = r.summary["cells"][m] if m in r.summary.get("cells", {}) else {}
                    rows.append({"rank": rank, "candidate": c.index, "changes": c.label, "phase": phase, "seed": seed,
                                 "level": m[0], "players": str(m[1]) if not goal.pooled else goal.players_label,
                                 "games": r.games, "rate": r.rate[m], "ci_low": low, "ci_high": high,
                                 "target": goal.target(m), "miss": r.rate[m] - goal.target(m),
                                 **{column: feel.get(column, math.nan) for column in SUMMARY}})
        return pd.DataFrame(rows)

    @property
    def arcs(self):
        """One row per verified candidate, level (and player count), outcome and share of the game
        played: the mean chance of winning of its traced fresh games (fisim.results.feel.arc)."""
        import pandas as pd
        rows = []
        for rank, c in enumerate(self.race.ranked, 1):
            if c not in self.verified:
                continue
            for (level, players), arc in self.verified[c].summary["arcs"].items():
                rows += [{"rank": rank, "candidate": c.index, "changes": c.label, "level": level, "players": players,
                          **row} for row in arc.to_dict("records")]
        columns = ["rank", "candidate", "changes", "level", "players", "outcome", "played", "chance", "games"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def record(self):
        """The request and the outcome, as design.json holds them."""
        plan, goal, result, answer = self.plan, self.plan.goal, self.race, self.answer
        verified = self.verified[answer]
        constraints = {name: [low, None if math.isinf(high) else high] for name, (low, high) in goal.windows}
        return {
            "fisim_version": VERSION,
            "request": {"sets": {k: list(v) for k, v in plan.axes}, "base": dict(answer.base),
                        "targets": dict(goal.targets), "players": list(goal.counts), "pooled": goal.pooled,
                        "tolerance": goal.tolerance, "constraints": constraints, **plan.setting,
                        "budget": plan.budget, "verify_games": self.fresh_games, "best": plan.best,
                        "trace_games": plan.trace_games, "seed": plan.seed, "race_seed": plan.race_seed,
                        "verify_seed": plan.verify_seed},
            "outcome": {"settled": result.settled, "reached": result.reached, "verdict": verdict(self),
                        "rounds": result.rounds, "looks": result.looks, "z": round(result.z, 4),
                        "candidates": len(plan.candidates), "unplayable": plan.unplayable,
                        "played": len(result.readings), "in_the_race": len(result.alive), "cut": result.cut,
                        "games": self.asked, "search_games": result.games, "played_now": self.played,
                        "answer": answer.index, "answer_changes": answer.label,
                        "verified_largest_miss": round(verified.largest_miss, DIGITS),
                        "verified_within_tolerance": bool(verified.excess == 0)},
        }

    def write(self, out):
        """design.json, the tables (candidates, curves, arcs) as CSV and JSON, and best.toml, each
        written whole."""
        out = Path(out)
        atomic_write(out / "design.json", lambda p: p.write_text(json.dumps(self.record, indent=1) + "\n"))
        for name, frame in (("candidates", self.candidates), ("curves", self.curves), ("arcs", self.arcs)):
            frame = frame.round(DIGITS)
            atomic_write(out / f"{name}.csv", lambda p, f=frame: f.to_csv(p, index=False))
            atomic_write(out / f"{name}.json", lambda p, f=frame: f.to_json(p, orient="records", indent=1))
        atomic_write(out / "best.toml", lambda p: p.write_text(self.variant_text()))

    def variant_text(self):
        """The answer as a variant file: the base variant's numbers with the designed ones, and a
        comment with the command that plays it."""
        answer, goal = self.answer, self.plan.goal
        cell = answer.cells[0][1]
        values = {**(dict(cell.variant.values) if cell.variant else {}), **dict(answer.values)}
        targets = ", ".join(f"{level} {percent(rate, None)}" for level, rate in goal.targets)
        options = [*(f"--rules {s}" for s in cell.rules),
                   *([f"--layout {cell.layout}"] if cell.layout != defaults.LAYOUT else []),
                   *([f"--policy {cell.policy.given}"] if cell.policy.given != defaults.POLICY else []),
                   *([f"--team {','.join(cell.team)}"] if cell.team else []),
                   f"--players {cell.players}", f"--level {cell.level}"]
        lines = [f"# fisim design's answer for {targets} (within {points(goal.tolerance, 1, signed=False)} points), "
                 f"{goal.players_label}, policy {self.plan.setting['policy']}: {answer.label}",
                 f"# play it: fisim simulate --rules best.toml {' '.join(options)}"]
        lines += [f"{k} = {json.dumps(list(values[k])) if k == 'meter' else values[k]}" for k in PARAMETERS
                  if k in values]
        return "\n".join(lines) + "\n"


def _reading(reading, goal, prefix):
    """A Reading's columns in the candidates table (NaN for a candidate not played): each measure's
    rate, the largest miss and where, whether within the tolerance, how the games feel (pooled over
    its cells), and each feel measure with its interval at the reading's confidence."""
    row = {f"{prefix}rate_{goal.column(m)}": reading.rate[m] if reading else math.nan for m in goal.measures}
    row.update({f"{prefix}largest_miss": reading.largest_miss if reading else math.nan,
                f"{prefix}worst": goal.label(reading.worst) if reading else None,
                f"{prefix}within_tolerance": (reading.excess == 0) if reading else None})
    row.update({f"{prefix}{column}": reading.summary.get(column, math.nan) if reading else math.nan
                for column in SUMMARY})
    for name in FEEL:       # (drama, in SUMMARY at 95% too, with the reading's interval)
        estimate, low, high = reading.feel[name] if reading else (math.nan,) * 3
        row.update({f"{prefix}{name}": estimate, f"{prefix}{name}_low": low, f"{prefix}{name}_high": high})
    return row


def verdict(design):
    """How the search ended, in words: settled or not, whether the targets are reached (or what
    no candidate reaches, with the closest), how many candidates it never played and how many
    left by rank, untested."""
    result, goal, answer = design.race, design.plan.goal, design.answer
    tolerance = f"{points(goal.tolerance, 1, signed=False)} points"
    fits = f"within {tolerance} of every target at 95%" + (" and meets the constraints" if goal.windows else "")
    smaller = [c for c in result.dropped if c.change < answer.change]
    shown = [c for c in result.ranked if c in result.readings and result.readings[c].decided]
    if shown and shown[0] is answer:
        what = f"the answer is {fits}"
        if smaller and all(result.dropped[c][1] == SHOWN for c in smaller):
            what += ", and every candidate with a smaller change is shown not to be"
    elif shown:
        what = f"{shown[0].label} is shown {fits}; whether the answer, a smaller change, is too is open"
    elif result.reached == "unreachable":
        r = result.readings[answer]
        broken = "a target beyond the tolerance" + (" or to break a constraint" if goal.windows else "")
        what = (f"target out of reach: no candidate {'left in the race ' if result.cut else ''}reaches the targets, "
                f"every one is shown to miss {broken}; the closest misses by "
                f"{points(r.largest_miss, 1, signed=False)} points ({goal.label(r.worst)})"
                + "".join(f" and breaks {name.replace('_', ' ')} ({r.feel[name][0]:.2f}, asked {window(low, high)})"
                          for name, (low, high) in goal.windows if not low <= r.feel[name][0] <= high))
    else:
        what = f"whether a candidate is within {tolerance} of every target is open"
    larger = sum(why == LARGER and c not in result.readings for c, (_, why) in result.dropped.items())
    if larger:
        what += f"; {plural(larger, 'candidate')} with a larger change never needed playing"
    if result.cut:
        what += (f"; {plural(result.cut, 'candidate')} left the race by rank ({CUT}), as the budget required, not "
                 "shown worse (a larger --budget tests more of them)")
    if result.settled:
        ties = len(result.alive) - 1
        return (f"settled: {what}" + (f" ({ties} more with the same change tie; the smaller estimated miss answers)"
                                      if ties else ""))
    waiting = sum(c not in result.readings for c in result.alive)
    return (f"not settled: the budget ({count(design.plan.budget)} games) ended with "
            f"{plural(len(result.alive) - waiting, 'candidate')} in the race"
            + (f" and {count(waiting)} not yet played" if waiting else "")
            + f", the answer the best estimate; {what}")
