"""`fisim ladder`: how the win rate grows with the players' skill, and how much of a game the deal
decides.

The skill ladder: policies of rising strength (by default policies.LADDER, from the policies'
specs: random, passive, greedy, expert, tuned, planner and searches over some of them) and the
clairvoyant reference (policies/clairvoyant.py: it sees the decks, so it is not a legal player; it
bounds what perfect foresight of the cards could achieve) play the standard island with random
teams at each level and player count. Game i of every cell is deal i of the seed (common random
numbers), so every comparison between two policies is paired.

Per-deal difficulty: the first D deals of every level and player count are replayed R times by one
stochastic policy (the replayer), repeats 0, 1, ..., R - 1 varying only the policy's random stream
(fisim.rules.rng). From the D x R outcomes: each deal's win probability, the deals no ladder
policy, no replay and not the clairvoyant ever won, the deals every replay won, and spread
measures after Goodman, Perez-Liebana and Lucas (2025, "Seeding for Success"), who compare games
by the spread of per-seed outcomes under repeated play:

- span: the largest minus the smallest per-deal win rate; trimmed span: the same between the 5th
  and the 95th percentile (a few extreme deals do not make it);
- outliers: the share of deals whose win count a two-sided binomial test at 5% rejects for the
  overall win rate (about 5% or less if the deal made no difference);
- entropy: the uncertainty of one game's outcome in bits, before the deal is known (of the
  overall rate) and once it is (the mean over deals; plug-in, so a little low for small R);
- the deal's share of the outcome's variance (between-deal variance of the win probability,
  corrected for the binomial noise of R replays, over p(1-p)): 0 when the deal does not matter,
  1 when it decides every game. With win/loss outcomes it says directly how much is the deal's
  luck and how much is play.

Both parts are sweeps (fisim.sweep): DIR/ladder and DIR/deals are ordinary, resumable, verified
stores of the same seed, with per-game rows (each with its repeat); everything printed or written
is computed from them alone.
"""
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from fisim.cell import Cell, play
from fisim.comparison import paired_difference, pairing
from fisim.defaults import FULL_LADDER
from fisim.errors import ConfigError, StoreError
from fisim.formatting import duration
from fisim.grid import parse_levels, parse_players
from fisim.results.chunks import counted_whole
from fisim.rules.config import level_position
from fisim.stats import Z95, wilson
from fisim.store import MANIFEST, policy_labels, read_store
from fisim.tables import win_bits
from policies import LADDER, labelled, sees_decks

LAYOUT = "standard"
TRIM = 0.05                 # the trimmed span leaves out this share of deals at each end
LADDER_STORE, DEALS_STORE = "ladder", "deals"
PILOT_SECONDS = 0.5         # how long each policy plays (nothing stored) to measure its speed for the plan
REPLAY_PROBES = 256         # deals at most that a replayer plays twice to show that its replays differ
COMPILE_SECONDS = 60        # a policy's (or the engine's) first compile on an idle core, roughly: the estimate's unit


@dataclass(frozen=True)
class Setup:
    """What a ladder plays, checked: its levels and player counts, the ladder's policies and the
    replayers (as cells name them), the games per setting and the replays."""
    levels: list
    players: list
    names: list
    replaying: list
    games: int
    deals: int
    repeats: int

    @property
    def ladder_cells(self):
        return ladder_cells(self.levels, self.players, self.names)

    @property
    def deal_cells(self):
        return [c for name in self.replaying for c in deal_cells(self.levels, self.players, name, self.repeats)]


def setup(levels, players, games, policies, clairvoyant=None, deals=0, repeats=2, replayer=None, seed=0, option=""):
    """The ladder `fisim ladder` (and fisim.ladder) plays, every option checked, a ConfigError in one
    line otherwise (`option` "--": named as the command line's options): `levels`, `players`,
    `policies` as a sweep's axes take them; `clairvoyant` the reference's budget (None: its own; 0:
    none); `replayer` None for no replays, else it replays the first `deals` deals `repeats` times,
    refused when its random stream never changes its play."""
    from fisim import grid
    if replayer is not None and deals > games:
        raise ConfigError(f"{option}deals {deals} needs {option}games of at least {deals}: every ladder policy "
                          "plays each replayed deal (or replay no deals)")
    legal = grid.parse_policies(policies)
    seers = [p for p in legal if sees_decks(p)]
    if seers:
        raise ConfigError(f"{option}policies lists {seers[0].NAME}, which is not a legal player; the clairvoyant "
                          f"reference is {option}clairvoyant N")
    if clairvoyant != 0:
        legal += grid.parse_policies(f"clairvoyant:{clairvoyant}" if clairvoyant else "clairvoyant")
    levels, players = grid.parse_levels(levels), grid.parse_players(players)
    replayers = grid.parse_policies(replayer) if replayer is not None else []
    easiest = min(levels, key=level_position)
    alike = next((p for p in replayers if not replays_differ(p, easiest, players[len(players) // 2], seed)), None)
    if alike:
        raise ConfigError(f"{option}replayer {alike.given} plays every replay of a deal alike ({REPLAY_PROBES} deals, "
                          "each played twice, were the same game): its random stream never changes its play, so the "
                          "replays would measure nothing; choose a stochastic policy, such as search:8, passive or "
                          "random")
    return Setup(levels, players, [p.given for p in legal], [p.given for p in replayers], games, deals, repeats)


def ladder_cells(levels, players, policies):
    """Every (level, players, policy) of the ladder: standard island, random teams, official rules."""
    return [Cell(LAYOUT, level, p, None, policy, ()) for p in players for level in levels for policy in policies]


def deal_cells(levels, players, replayer, repeats):
    """The replays: one cell per level, player count and repeat index."""
    return [Cell(LAYOUT, level, p, None, replayer, (), repeat=r)
            for p in players for level in levels for r in range(repeats)]


def replays_differ(replayer, level, players, seed=0):
    """Whether `replayer` plays some deal differently at repeats 0 and 1 (only its random stream
    changes): deals 0, 1, 2-3, 4-7, ... of the setting, each played twice, up to REPLAY_PROBES of
    them, the first batch with a difference ending the check (a stochastic policy's first deal
    mostly does). A policy whose stream never changes its play (expert, a policy file that ignores
    rng, under any spelling; search with a tiny budget) replays every deal alike, and its per-deal
    difficulty would measure nothing."""
    first, size = 0, 1
    while first < REPLAY_PROBES:
        cells = (Cell(LAYOUT, level, players, None, replayer, (), repeat=r) for r in (0, 1))
        if not np.array_equal(*(play(cell, seed, first, size, threads=1) for cell in cells)):
            return True
        first, size = first + size, min(first + size, REPLAY_PROBES - first - size)
    return False


def store_wins(path, order=()):
    """{(level, players, policy, repeat): per-game wins in game order} of a store, and its policies:
    those named in `order` in that order, then the others in the order of its cells (a store
    extended by a policy lists it last); a policy named NAME@VERSION, as every result names it."""
    manifest, chunks = read_store(path)
    label = policy_labels(manifest)
    wins = {(c["level"], c["players"], label[c["policy"]], c.get("repeat", 0)):
            win_bits(chunks, c["key"], manifest["target"]) for c in manifest["cells"]}
    names = sorted(dict.fromkeys(c["policy"] for c in manifest["cells"]),
                   key=lambda name: order.index(name) if name in order else len(order))
    return wins, [label[name] for name in names]


def _levels(keys):
    """The levels among (level, ...) keys, easiest first."""
    return sorted({k[0] for k in keys}, key=level_position)


def _rate_row(level, players, policy, won):
    low, high = wilson(int(won.sum()), len(won))
    return {"level": level, "players": players, "policy": policy, "label": labelled(policy), "games": len(won),
            "wins": int(won.sum()), "rate": won.mean() if len(won) else np.nan, "ci_low": low, "ci_high": high}


def ladder_table(wins, policies):
    """One row per level, player count ("2", "3", "4" and "all": pooled, the same deals of every
    count) and policy: games, wins, win rate and its Wilson 95% interval."""
    rows = []
    counts = sorted({k[1] for k in wins})
    for level in _levels(wins):
        for players in [*map(str, counts), "all"]:
            for policy in policies:
                parts = [wins[(level, p, policy, 0)] for p in counts if (players in ("all", str(p)))
                         and (level, p, policy, 0) in wins]
                if parts:
                    rows.append(_rate_row(level, players, policy, np.concatenate(parts)))
    return pd.DataFrame(rows)


def gap_table(wins, policies):
    """Per level and player count (and pooled): the best legal policy of the level (by its pooled
    win rate), the clairvoyant reference, and the paired difference clairvoyant minus best with
    its 95% interval over the games both played (the same deals), with the pairing's
    correlation. Empty without a clairvoyant and a legal policy."""
    seers = [p for p in policies if sees_decks(p)]
    legal = [p for p in policies if not sees_decks(p)]
    if not seers or not legal:
        return pd.DataFrame()
    counts = sorted({k[1] for k in wins})
    rows = []
    for level in _levels(wins):
        pooled = {q: np.concatenate([wins.get((level, p, q, 0), np.zeros(0, bool)) for p in counts]) for q in legal}
        best = max(legal, key=lambda q: pooled[q].mean() if len(pooled[q]) else -1.0)
        for players, which in [*((str(p), [p]) for p in counts), ("all", counts)]:
            for seer in seers:
                a, b = _aligned(wins, level, which, seer, best)
                diff, low, high = paired_difference(a, b)
                r, _ = pairing(a, b)
                rows.append({"level": level, "players": players, "best": best, "best_rate": b.mean(),
                             "clairvoyant": seer, "clairvoyant_rate": a.mean(), "games": len(a), "gap": diff,
                             "gap_low": low, "gap_high": high, "correlation": r})
    return pd.DataFrame(rows)


def _aligned(wins, level, which, first, second):
    """The per-game wins of two policies over the same games (deals) of the player counts `which`."""
    a, b = [np.zeros(0, bool)], [np.zeros(0, bool)]
    for p in which:
        x, y = wins.get((level, p, first, 0)), wins.get((level, p, second, 0))
        if x is not None and y is not None:
            n = min(len(x), len(y))
            a.append(x[:n])
            b.append(y[:n])
    return np.concatenate(a), np.concatenate(b)


def replays_of(deal_wins):
    """{(level, players): (replayer, bool[deals, repeats])} of a deals store's per-game wins."""
    found = {}
    for level, players in dict.fromkeys(k[:2] for k in deal_wins):
        replays = {k[3]: w for k, w in deal_wins.items() if k[:2] == (level, players)}
        replayer = next(k[2] for k in deal_wins if k[:2] == (level, players))
        deals = min(len(w) for w in replays.values())
        found[(level, players)] = replayer, np.stack([replays[r][:deals] for r in sorted(replays)], axis=1)
    return found


def deal_table(ladder_wins, replays):
    """Per level and player count of the replays (replays_of): the replayer, deals D, repeats R,
    the mean per-deal win probability with its 95% interval (over deals), the share of deals never
    won (no ladder policy, clairvoyant included, nor any replay won it) and always won (every
    replay won it), each with its Wilson interval, and the spread measures of the module's
    docstring."""
    rows = []
    for (level, players), (replayer, outcomes) in replays.items():
        deals = outcomes.shape[0]
        ladder = [w[:deals] for k, w in ladder_wins.items() if k[:2] == (level, players) and len(w) >= deals]
        won_by_ladder = np.any(ladder, axis=0) if ladder else np.zeros(deals, bool)
        row = {"level": level, "players": players, "replayer": replayer, "deals": deals,
               "repeats": outcomes.shape[1], "ladder_policies": len(ladder)}
        row.update(_share("never_won", ~(won_by_ladder | outcomes.any(axis=1))))
        row.update(_share("always_won", outcomes.all(axis=1)))
        row.update(spread(outcomes))
        rows.append(row)
    return pd.DataFrame(rows)


def _share(name, flags):
    low, high = wilson(int(flags.sum()), len(flags))
    return {name: flags.mean(), f"{name}_low": low, f"{name}_high": high}


def spread(outcomes):
    """The spread measures of per-deal outcomes (bool[deals, repeats]; see the module docstring)."""
    deals, repeats = outcomes.shape
    k = outcomes.sum(axis=1)
    p = k / repeats
    mean = p.mean()
    half = Z95 * p.std(ddof=1) / math.sqrt(deals) if deals > 1 else np.nan
    noise = np.mean(p * (1 - p)) / (repeats - 1) if repeats > 1 else np.nan
    between = p.var(ddof=1) - noise if deals > 1 else np.nan
    total = mean * (1 - mean)
    low_q, high_q = np.quantile(p, [TRIM, 1 - TRIM])
    lo_k, hi_k = _binomial_central(repeats, mean)
    return {"mean_win": mean, "mean_win_low": max(0.0, mean - half), "mean_win_high": min(1.0, mean + half),
            "span": p.max() - p.min(), "trimmed_span": high_q - low_q,
            "outliers": float(np.mean((k < lo_k) | (k > hi_k))),
            "entropy": _entropy(mean), "entropy_given_deal": float(np.mean(_entropy(p))),
            "deal_share": float(np.clip(between / total, 0, 1)) if total > 0 else np.nan}


def _binomial_central(n, p, alpha=0.05):
    """(lo, hi): the win counts of n games at rate p that a two-sided binomial test at level
    alpha does not reject (each tail below them holds less than alpha / 2)."""
    pmf = np.array([math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(n + 1)])
    below, above = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]
    lo = int(np.argmax(below >= alpha / 2))
    hi = n - int(np.argmax(above[::-1] >= alpha / 2))
    return lo, hi


def _entropy(p):
    p = np.asarray(p, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.where((p > 0) & (p < 1), h, 0.0)


def read_ladder(out, order=()):
    """The tables of a ladder directory, from its stores alone: ladder, gap, deals (empty when no
    deal was replayed), the per-deal win probabilities per (level, players) for the figures, and
    the ladder's policies in order (`order`'s, as store_wins; by default the skill ladder's, weakest
    first, whatever order the store grew in)."""
    out = Path(out)
    ladder_wins, policies = store_wins(out / LADDER_STORE, order or LADDER)
    replays = replays_of(store_wins(out / DEALS_STORE)[0]) if (out / DEALS_STORE / MANIFEST).exists() else {}
    return {"policies": policies, "ladder": ladder_table(ladder_wins, policies),
            "gap": gap_table(ladder_wins, policies), "deals": deal_table(ladder_wins, replays),
            "distributions": {key: outcomes.mean(axis=1) for key, (_, outcomes) in replays.items()}}


def plan(levels, players, policies, games, replayers=(), deals=0, repeats=0):
    """What a ladder plays: (what, policy, games) per ladder policy and per replayer."""
    settings = len(levels) * len(players)
    return ([(policy, policy, games * settings) for policy in policies]
            + [(f"{name}, replays", name, deals * repeats * settings) for name in replayers])


def plan_text(levels, players, policies, games, replayers, deals, repeats, seed, threads, stored=None):
    """The plan of a ladder (format_plan), the speed of every policy with games left to play
    measured now at the ladder's easiest level (the longest games: the estimate errs long) and its
    middle player count; `stored` as format_plan takes it."""
    rows = plan(levels, players, policies, games, replayers, deals, repeats)
    stored = stored or {}
    level, count = min(levels, key=level_position), players[len(players) // 2]
    speeds = {policy: games_per_second(policy, level, count, seed)
              for policy in dict.fromkeys(p for what, p, n in rows if n > stored.get(what, 0))}
    n = len(levels) * len(players)
    settings = (f"{n} setting{'s' if n != 1 else ''} (levels {', '.join(levels)}; "
                f"{', '.join(map(str, players))} players), speeds measured at {level} with {count} players")
    return format_plan(rows, speeds, threads, settings, stored)


def stored_games(path, seed, games, levels, players, labels, repeats=1):
    """Per policy, the games the ladder's store at `path` already holds of this ladder's cells
    (`levels`, `players`, repeats below `repeats`, the policies' `labels` now: {policy:
    NAME@VERSION}; an older version's games are refused or played again) that count toward `games`
    per cell: what a resumed ladder does not play again. Empty without a store of this seed, or one
    that cannot be read (the run says why)."""
    try:
        manifest, chunks = read_store(path)
    except StoreError:
        return {}
    if manifest.get("seed") != seed:
        return {}
    stored_as = policy_labels(manifest)
    found = {}
    for cell in manifest["cells"]:
        if labels.get(cell["policy"]) != stored_as[cell["policy"]]:
            continue
        if cell["level"] in levels and cell["players"] in players and cell.get("repeat", 0) < repeats:
            mine = chunks[chunks["cell"] == cell["key"]]
            held = {int(k): (int(w), int(n)) for k, w, n in zip(mine["chunk"], mine["wins"], mine["games"])}
            whole, _ = counted_whole(held, {"games": games}, manifest["chunk_size"])
            found[cell["policy"]] = found.get(cell["policy"], 0) + sum(held[k][1] for k in range(whole))
    return found


def to_compile(policies):
    """What playing `policies` (names) compiles first, because the compile cache lacks it: "the
    engine", then the policies (none when nothing is compiled: the interpreted engine)."""
    if numba.config.DISABLE_JIT or not policies:
        return []
    from fisim.engine.runners import runner
    from policies import load_policy
    runs = [runner(load_policy(name)) for name in policies]
    engine = [] if runs[0].marker("run_games").exists() else ["the engine"]
    return engine + [name for name, run in zip(policies, runs) if not run.marker().exists()]


def compile_text(missing, cores):
    """What a ladder compiles before its plan, and about how long that takes (COMPILE_SECONDS a
    unit, `cores` units at a time)."""
    seconds = COMPILE_SECONDS * math.ceil(len(missing) / max(1, cores))
    return (f"first compiling {', '.join(missing)} (not in the compile cache yet): {duration(seconds)} on an idle "
            f"machine of {cores} core{'s' if cores != 1 else ''}, longer on a busy one; then the plan")


def games_per_second(policy, level, players, seed=0):
    """One core's speed at playing `policy`'s games of a ladder setting, measured here: games 0, 1,
    ... played (and not stored) in doubling batches for PILOT_SECONDS, after one game that loads
    or compiles the code."""
    cell = Cell(LAYOUT, level, players, None, policy, ())
    play(cell, seed, 0, 1, threads=1)
    played, batch, start = 0, 1, time.perf_counter()
    while time.perf_counter() - start < PILOT_SECONDS:
        play(cell, seed, played, batch, threads=1)
        played, batch = played + batch, batch * 2
    return played / (time.perf_counter() - start)


def format_plan(rows, speeds, threads, settings, stored=None):
    """The plan a ladder prints before it plays: the games per policy (plan's rows) left to play,
    `stored` ({row: games} the stores hold) aside, each policy's speed measured here and the
    estimated time on `threads` threads, the time left in all, and the full-size command with its
    time when every policy it plays was measured."""
    stored = stored or {}
    lines = [f"plan: {settings}; the games per policy, their speed measured here (games per second on one core) "
             f"and the time on {threads} thread{'s' if threads != 1 else ''}:"]
    total = 0.0
    for what, policy, games in rows:
        left = max(games - stored.get(what, 0), 0)
        kept = f"   ({games - left:,} of {games:,} stored)" if left < games else ""
        if not left:
            lines.append(f"  {what:<24}{0:>10,} games{kept}")
            continue
        seconds = left / speeds[policy] / threads
        total += seconds
        lines.append(f"  {what:<24}{left:>10,} games {speeds[policy]:>12,.1f}/s   {duration(seconds)}{kept}")
    held, every = sum(min(stored.get(what, 0), games) for what, _, games in rows), sum(g for *_, g in rows)
    if held == every:
        lines.append(f"  nothing to play: the stores hold all {every:,} games")
    elif held:
        lines.append(f"  time left: {duration(total)} (the stores hold {held:,} of its {every:,} games; a resumed "
                     "ladder plays only what they lack)")
    else:
        lines.append(f"  total: {duration(total)} (a resumed ladder plays only what its stores lack)")
    full = plan(parse_levels(FULL_LADDER["levels"]), parse_players(FULL_LADDER["players"]),
                [*LADDER, f"clairvoyant:{FULL_LADDER['clairvoyant']}"], FULL_LADDER["games"], [FULL_LADDER["replayer"]],
                FULL_LADDER["deals"], FULL_LADDER["repeats"])
    if all(policy in speeds for _, policy, _ in full):
        took = duration(sum(games / speeds[policy] / threads for _, policy, games in full))
        lines.append(f"the full-size ladder ({took} here): fisim ladder --full-size")
    else:
        lines.append("the full-size ladder (hours of search): fisim ladder --full-size")
    return "\n".join(lines)
