#!/usr/bin/env python3
"""Where search departs from its base: games played by search over a policy (search:64/planner by
default), and at every turn the base's own action phase played from the same position; the first
action decision of a turn where the two choose differently is a departure, and it is classified by
what each chose (the option types, whom it moves or gives to, where a Helicopter Lift lands, how
many actions were left). Each departure is counted per game played, so that player counts compare:
by pair of option types, by kind (KINDS, with 95% intervals) and, for the gifts of treasure cards,
whom each side gives to.

A departure is search's verdict on sampled worlds, not proof of a mistake; many at one kind of
decision say where the base is worth improving (docs/strength.md).

    python scripts/departures.py [--search search:64/planner] [--base planner] [--level normal]
                                 [--players 2,4] [--games 100] [--seed 2045] [--out departures.csv]
"""
import argparse
import sys
from collections import Counter

import numpy as np

CAP = 1 << 16           # a phase's transcript and decision record


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", default="search:64/planner", help="the policy whose games are played")
    parser.add_argument("--base", default="planner", help="the policy it is held against at every turn")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--games", type=int, default=100, help="games per player count")
    parser.add_argument("--seed", type=int, default=2045)
    parser.add_argument("--out", help="a CSV of every departure, with its position's features")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    from fisim.errors import ConfigError
    from fisim.grid import parse_levels, parse_players
    from policies import SCRIPTED, resolve
    try:
        levels = parse_levels(args.level)
        args.players = parse_players(args.players)
        args.policies = resolve(args.search), resolve(args.base), resolve(SCRIPTED)
    except ConfigError as exc:
        parser.error(str(exc))
    if len(levels) != 1:
        parser.error(f"--level takes one level, not {args.level}")
    args.level = levels[0]
    return args


def main(argv=None):
    args = parse(argv)
    import pandas as pd
    search, base, scripted = args.policies
    rows = []
    for players in args.players:
        for game in range(args.games):
            rows += departures(search, base, scripted, args.level, players, args.seed, game)
            print(f"{players} players, game {game + 1}/{args.games}: {len(rows)} departures", file=sys.stderr,
                  flush=True)
    frame = pd.DataFrame(rows)
    if args.out:
        frame.to_csv(args.out, index=False)
    print(summary(frame, args.games).to_string())
    print()
    print(kinds(frame, args.players, args.games).to_string())
    print()
    print(gifts(frame, args.players).to_string())


def departures(search, base, scripted, level, players, seed, game):
    """The departures of one game played by `search` (one dict per departure)."""
    from fisim.engine import EngineGame, decisions_of
    from fisim.engine.entries import PHASE_TURN
    from fisim.rules import state as st
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    from fisim.rules.options import ACTION
    from fisim.rules.rng import N_STREAMS, game_seed
    from fisim.rules.setup import setup_game
    g = st.new_game_array(builtin_layout("standard").geometry, GameConfig(players=players, level=level).to_array(),
                          CAP, CAP)
    rng = np.zeros(N_STREAMS, np.uint64)
    setup_game(g, rng, np.uint64(game_seed(seed, game)))
    played = EngineGame(g, rng)
    found = []
    while g[st.P_STATUS] == st.PLAYING:
        start, start_rng = g.copy(), rng.copy()
        g[g[st.X_DECLOG]] = 0
        played.run(PHASE_TURN, search)        # (the turn passes to the next seat)
        theirs = decisions_of(g)
        own = action_phase(start, start_rng, base)
        k = next((i for i, (a, b) in enumerate(zip(own, theirs)) if a != b), None)
        if k is None or own[k][0] != ACTION or theirs[k][0] != ACTION or own[k][2] != theirs[k][2]:
            continue
        pub = position_at(start, start_rng, scripted, theirs[:k])
        found.append({"players": players, "game": game, "turn": int(pub[st.P_TURN]), "won": None,
                      **features(pub, _whole(own, k), _whole(theirs, k))})
    for row in found:
        row["won"] = bool(g[st.P_STATUS] == st.WON)
    return found


def _begun(g):
    """A copy of game array g at its turn's start, the turn begun (fisim.rules.turn.begin_turn)."""
    from fisim.rules import state as st
    from fisim.rules.config import C_ACTIONS
    g = g.copy()
    g[st.P_TURN] += 1
    g[st.P_ACTIONS_LEFT] = g[st.P_CFG + C_ACTIONS]
    g[st.P_FLIGHT_USED] = 0
    return g


def action_phase(g, rng, policy):
    """The decisions of `policy`'s action phase from game array g at a turn's start."""
    from fisim.engine import EngineGame, decisions_of
    from fisim.engine.entries import PHASE_ACTIONS
    from fisim.rules import state as st
    copy = EngineGame(_begun(g), rng.copy())
    copy.g[copy.g[st.X_DECLOG]] = 0
    copy.run(PHASE_ACTIONS, policy)
    return decisions_of(copy.g)


def _whole(decisions, k):
    """The whole option code chosen at decision k: a Helicopter Lift with the destination chosen
    at the decision after it."""
    from fisim.rules.options import LIFT, LIFT_DEST, code, field1, field2, otype
    kind, _, options, chosen = decisions[k]
    c = options[chosen]
    if otype(c) == LIFT and k + 1 < len(decisions) and decisions[k + 1][0] == LIFT_DEST:
        _, _, dests, at = decisions[k + 1]
        c = code(LIFT, field1(c), field2(c), field1(dests[at]))
    return c


def position_at(g, rng, scripted, prefix):
    """pub at the action decision after the decisions `prefix` of the turn starting at g: the
    scripted policy plays them, then END, which stops the phase and changes nothing else."""
    from fisim.engine import EngineGame
    from fisim.engine.entries import PHASE_ACTIONS
    from fisim.rules import state as st
    from fisim.rules.options import ACTION, LIFT_DEST
    script = [_whole(prefix, i) for i in range(len(prefix)) if prefix[i][0] != LIFT_DEST]
    copy = EngineGame(_begun(g), rng.copy())
    copy.run(PHASE_ACTIONS, scripted, script=script)
    pub = copy.g[:st.P_SIZE].copy()
    pub[st.P_DECISION], pub[st.P_DECIDER] = ACTION, pub[st.P_ACTIVE]
    return pub


def features(pub, own, theirs):
    """What a departure was: each choice's option type and what it involves."""
    from fisim.rules import view
    from fisim.rules.options import TYPE_NAMES, decode, otype
    return {"actions_left": view.actions_left(pub), "captured": bin(view.captured_mask(pub)).count("1"),
            "own": TYPE_NAMES[otype(own)], "theirs": TYPE_NAMES[otype(theirs)],
            "own_option": " ".join(map(str, decode(own))), "theirs_option": " ".join(map(str, decode(theirs))),
            "pub": " ".join(map(str, pub))}


WALKS = ("move", "fly", "dive", "shore", "shore2")      # where a pawn goes or which tile is shored
KINDS = (   # (row, the departures it counts: of the base's and search's option types)
    ("all", lambda own, theirs: own == own),
    ("a gift on either side", lambda own, theirs: (own == "give") | (theirs == "give")),
    ("moves and shores only (flights, dives, double shores)", lambda own, theirs: own.isin(WALKS) & theirs.isin(WALKS)),
    ("a Helicopter Lift on either side", lambda own, theirs: (own == "heli") | (theirs == "heli")),
    ("a Navigator moving another pawn on either side", lambda own, theirs: (own == "nav") | (theirs == "nav")),
    ("an END on either side", lambda own, theirs: (own == "end") | (theirs == "end")),
    ("a capture on either side", lambda own, theirs: (own == "capture") | (theirs == "capture")),
)


def kinds(frame, counts, games):
    """Departures per game of each of KINDS by player count, each a mean over the games (a game
    without one counting 0) with its 95% interval (normal approximation); the rows overlap."""
    import pandas as pd

    from fisim.stats import mean_interval
    if frame.empty:
        return pd.DataFrame()
    table = {}
    for players in counts:
        mine = frame[frame["players"] == players]
        cells = []
        for _, counted in KINDS:
            hits = mine[counted(mine["own"], mine["theirs"])]
            mean, low, high = mean_interval(list(hits.groupby("game").size().reindex(range(games), fill_value=0)))
            cells.append(f"{mean:.2f} [{low:.2f}, {high:.2f}]" if games > 1 else f"{mean:.2f}")
        table[f"{players} players"] = cells
    return pd.DataFrame(table, index=[name for name, _ in KINDS])


def gifts(frame, counts):
    """The gifts of treasure cards in departures, each side's (base, search) by player count: how
    many, of them how many to the player holding the most cards of that treasure (ties included),
    and the recipient's cards of it and in all, on average (from each departure's pub)."""
    import pandas as pd

    from fisim.rules import view
    from fisim.rules.constants import N_TREASURES
    if frame.empty:
        return pd.DataFrame()
    rows = []
    for players in counts:
        mine = frame[frame["players"] == players]
        for side, column in (("base", "own_option"), ("search", "theirs_option")):
            given = []
            for option, pub in zip(mine[column], mine["pub"]):
                kind, card, to, _ = option.split()
                if kind != "give" or int(card) >= N_TREASURES:
                    continue
                pub = np.array(pub.split(), np.int64)
                held = [view.cards(pub, seat, int(card)) for seat in range(view.players(pub))]
                given.append((held[int(to)] == max(held), held[int(to)], view.cards_in_hand(pub, int(to))))
            got = np.array(given, np.float64).reshape(-1, 3)    # to the collector, its cards, the hand
            means = got.mean(axis=0) if len(got) else np.full(3, np.nan)
            rows.append({"players": players, "side": side, "gifts": len(got), "to_the_collector": int(got[:, 0].sum()),
                         "recipient_cards_of_it": float(means[1]), "recipient_hand": float(means[2])})
    return pd.DataFrame(rows)


def summary(frame, games):
    """Departures per game, by player count and by the pair of option types."""
    import pandas as pd
    if frame.empty:
        return pd.DataFrame()
    counts = Counter(zip(frame["players"], frame["own"] + " -> " + frame["theirs"]))
    table = pd.Series(counts).unstack(0).fillna(0) / games
    return table.sort_values(table.columns[-1], ascending=False)


if __name__ == "__main__":
    main()
