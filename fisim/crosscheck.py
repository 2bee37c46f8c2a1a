"""Differential check: the Numba engine against the plain-Python reference, game by game.

The engine records a game with every policy decision; the reference plays the same seed, is
offered the same decisions, and must list exactly the same options at each, produce exactly
the same events and end with the same result row. The first disagreement is returned as a short
report.
"""
from dataclasses import dataclass, replace

from fisim import engine, reference
from fisim.errors import ConfigError
from fisim.rules import state as st
from fisim.rules.config import INCOMPATIBLE, SWITCHES, level_label
from fisim.rules.constants import LOSS_NAMES, MAX_PLAYERS, ROLE_NAMES
from fisim.rules.options import DECISION_NAMES, decode
from fisim.rules.variant import MAX_SKULL, PARAMETERS, SKULL_MARK, make_variant


def switch_sets():
    """The switch sets the cross-checks play: the official rules, each switch alone (solo goes
    with 1 player, so the caller adds it), and every other switch at once, twice, since a setting
    holds one switch of each incompatible pair: once with the first of each pair, once with the
    second."""
    combinable = [s for s in SWITCHES if s != "solo"]        # in SWITCHES' order: seeds follow it
    return [frozenset(), *(frozenset([s]) for s in combinable),
            *(frozenset(combinable) - {pair[1 - i] for pair in INCOMPATIBLE} for i in (0, 1))]


def random_config(rng, config):
    """`config` (a GameConfig) with a random valid variant: each rule number set, with chance 1/2,
    to a value drawn uniformly from its range (a meter of 1 to MAX_SKULL - 1 positions of 1 to 5
    flood cards), and with chance 1/2 a random starting position below the skull; drawn again
    until the setting can be played."""
    while True:
        values = {}
        for key, p in PARAMETERS.items():
            if rng.random() < 0.5:
                continue
            if key == "meter":
                values[key] = [*(int(n) for n in rng.integers(1, 6, size=rng.integers(1, MAX_SKULL))), SKULL_MARK]
            else:
                values[key] = int(rng.integers(p.low, p.high + 1))
        try:
            variant = make_variant(values, "random", "random variant")
            skull = replace(config, variant=variant).skull
            level = config.level if rng.random() < 0.5 else level_label(int(rng.integers(1, skull)))
            return replace(config, level=level, variant=variant).validate()
        except ConfigError:
            continue


@dataclass
class Mismatch:
    game: int
    what: str
    step: int
    engine: object
    reference: object
    engine_events: list = None       # the events before the disagreement (event mismatches)
    reference_events: list = None

    def __str__(self):
        return (f"game {self.game}: {self.what} differs at step {self.step}\n"
                f"  engine:    {self.engine}\n  reference: {self.reference}")


def crosscheck_game(layout, config, policy, seed, game):
    """(None, decisions compared) if the engine and the reference agree on game `game`, else
    (the first Mismatch, decisions compared before it)."""
    rec = engine.record(layout, config, policy, seed, game, decisions=True)
    asked = iter(enumerate(rec.decisions))
    problem = []

    def chooser(g, kind, seat, options):
        step, (ekind, eseat, eopts, chosen) = next(asked, (None, (None, None, None, None)))
        if step is None:
            problem.append(Mismatch(game, "number of decisions", len(rec.decisions), "no more", (kind, seat)))
            raise _Stop
        if (ekind, eseat, eopts) != (kind, seat, tuple(options)):
            problem.append(Mismatch(game, "decision", step, _show(ekind, eseat, eopts),
                                    _show(kind, seat, options)))
            raise _Stop
        return chosen

    try:
        ref = reference.play(layout, config, seed, game, chooser)
    except _Stop:
        return problem[0], problem[0].step
    compared = len(rec.decisions)
    events = [tuple(int(x) for x in row) for row in rec.events]
    for i, (a, b) in enumerate(zip(events, ref.events)):
        if a != b:
            return Mismatch(game, "event", i, a, b, events[:i], ref.events[:i]), compared
    if len(events) != len(ref.events):
        i = min(len(events), len(ref.events))
        return Mismatch(game, "number of events", i, len(events), len(ref.events), events, ref.events), compared
    row = result_of_row(rec.result)
    for key, value in row.items():
        if ref.result[key] != value:
            return Mismatch(game, f"result {key}", len(events), value, ref.result[key]), compared
    return None, compared


def result_of_row(row):
    """An engine result row (fisim.rules.state R_*) in the terms of the reference's game.result."""
    cause = int(row[st.R_CAUSE])
    return {
        "won": bool(row[st.R_STATUS] == st.WON),
        "cause": LOSS_NAMES[cause.bit_length() - 1] if cause else None,
        "conditions": {name for i, name in enumerate(LOSS_NAMES) if row[st.R_CONDITIONS] >> i & 1},
        "turns": int(row[st.R_TURNS]), "level": int(row[st.R_LEVEL]), "captured": int(row[st.R_CAPTURED]),
        "sunk": int(row[st.R_SUNK]), "sunk_mask": int(row[st.R_SUNK_MASK]),
        "first_sunk": int(row[st.R_FIRST_SUNK]), "last_sunk": int(row[st.R_LAST_SUNK]),
        "sunk_tiles": int(row[st.R_SUNK_TILES]), "first_sunk_tile": int(row[st.R_FIRST_SUNK_TILE]),
        "last_sunk_tile": int(row[st.R_LAST_SUNK_TILE]),
        "first": int(row[st.R_FIRST]),
        "team": tuple(ROLE_NAMES[r] for r in row[st.R_ROLE:st.R_ROLE + MAX_PLAYERS] if r >= 0),
        "close": int(row[st.R_CLOSE]),
    }


class _Stop(Exception):
    pass


def _show(kind, seat, options):
    return f"{DECISION_NAMES[kind]} seat {seat}: {[decode(o) for o in options]}"
