"""The ladder's report (`fisim ladder`, or `fisim report` of a ladder's directory): the skill
ladder, the clairvoyant reference against the best legal policy, and per-deal difficulty, each a
section whose tables are fisim.skill's, from its stores alone."""
from pathlib import Path

import numpy as np

from fisim import skill
from fisim.formatting import bracket, correlation, count, percent, plural, points, rate_bracket
from fisim.reporting import figures
from fisim.reporting.document import Column, Report, Section, Spread, Table
from fisim.rules.config import level_position
from fisim.stats import wilson
from fisim.store import Store
from policies import seer_notes, sees_decks

POOLED = "all"          # the ladder table's player count of the counts pooled
SETTING = f"{skill.LAYOUT} island, random teams, official rules"


def is_ladder(directory):
    """Whether `directory` is a ladder's: it holds the ladder's store."""
    return (Path(directory) / skill.LADDER_STORE / "manifest.json").exists()


def build(directory, order=(), title=None):
    """The report of the ladder in `directory`, its policies in `order` (as fisim.skill.read_ladder)."""
    tables = skill.read_ladder(directory, order)
    ladder, policies = tables["ladder"], tables["policies"]
    counts = [p for p in dict.fromkeys(ladder["players"]) if p != POOLED]
    games = int(ladder["games"][ladder["players"] != POOLED].min())
    caption = (f"{SETTING}; {games:,} games per level and player count ({', '.join(counts)} players), the same "
               f"deals for every policy.")
    sections = [_ladder(tables, counts, caption), _gap(tables["gap"], caption), _deals(tables)]
    manifest = Store(Path(directory) / skill.LADDER_STORE).read_manifest()
    total = int(ladder.loc[ladder["players"] != POOLED, "games"].sum())
    return Report(title or "Skill ladder and per-deal difficulty",
                  f"Monte Carlo results of fisim: {total:,} games of {len(policies)} policies on the same deals, and "
                  "the deals replayed. Every rate carries its 95% confidence interval.",
                  _overview(tables, manifest, counts, games), headline(tables), [],
                  [s for s in sections if s is not None], [Path(directory).resolve().name], "The ladder")


def _overview(tables, manifest, counts, games):
    ladder, deals = tables["ladder"], tables["deals"]
    rows = [("Setting", SETTING), ("Levels", ", ".join(dict.fromkeys(ladder["level"]))),
            ("Players", ", ".join(counts)), ("Policies", ", ".join(tables["policies"])),
            ("Games", f"{games:,} per level and player count for every policy (deals 0 to {games - 1:,} of the seed)")]
    if not deals.empty:
        first = deals.iloc[0]
        rows.append(("Replays", f"the first {first['deals']:,} deals of each level and player count, "
                                f"{first['repeats']} times each by {first['replayer']}"))
    return rows + [("Seed", str(manifest.get("seed", "?"))),
                   ("Versions", f"fisim {manifest.get('fisim_version', '?')}, "
                                f"rules version {manifest.get('rules_version', '?')}")]


def headline(tables):
    """The ladder in plain words, one line per level: the strongest legal policy's win rate and the
    clairvoyant's (player counts pooled), and the share of the replayed deals no policy won."""
    ladder, deals = tables["ladder"], tables["deals"]
    pooled = ladder[ladder["players"] == ladder["players"].iloc[-1]]        # "all", or the only count
    lines = []
    for level in dict.fromkeys(pooled["level"]):
        mine = pooled[pooled["level"] == level]
        legal, seers = mine[~mine["policy"].map(sees_decks)], mine[mine["policy"].map(sees_decks)]
        best = legal.loc[legal["rate"].idxmax()]
        text = (f"At {level.capitalize()}, the strongest legal computer team here ({best['policy']}) wins "
                f"{_rate(best)}")
        if not seers.empty:
            seer = seers.iloc[0]
            text += f", the clairvoyant one ({seer['policy']}) {_rate(seer)}"
        text += f" of {int(best['games']):,} games"
        replayed = deals[deals["level"] == level] if not deals.empty else deals
        if not replayed.empty:
            never = int(round((replayed["never_won"] * replayed["deals"]).sum()))
            n = int(replayed["deals"].sum())
            text += (f"; {rate_bracket(never / n, *wilson(never, n))} of {n:,} deals were won by no policy"
                     + (", not even with the decks in view" if not seers.empty else " of the ladder"))
        lines.append(text + ".")
    return lines


def _rate(row, prefix=""):
    """'12.3% [11.0, 13.5]' of the columns rate, ci_low and ci_high (or <prefix>, _low, _high)."""
    if prefix:
        return rate_bracket(row[prefix], row[f"{prefix}_low"], row[f"{prefix}_high"])
    return rate_bracket(row["rate"], row["ci_low"], row["ci_high"])


def _players(row):
    return "pooled" if row["players"] == POOLED else str(row["players"])


LEVEL = Column("Level", lambda r: r["level"], words=True)
PLAYERS = Column("Players", _players, words=True)


def _ladder(tables, counts, caption):
    ladder, policies = tables["ladder"], tables["policies"]
    order = {p: i for i, p in enumerate([*counts, POOLED])}

    def by_players(frame):
        shown = frame if len(counts) > 1 else frame[frame["players"] != POOLED]
        return shown.sort_values(["players", "level"], key=lambda s: s.map(order) if s.name == "players"
                                 else s.map(level_position), kind="stable")
    subtitle = (f"{SETTING}; {','.join(counts)} players pooled; {ladder['games'].iloc[0]:,} games per level and "
                "player count, the same deals for every policy; the computer team's rates")
    return Section(
        "skill-ladder", "Win rate against skill",
        "Every policy of the ladder, weakest first, on the same deals (game i of every policy is deal i of the "
        "seed), and the clairvoyant reference, which sees the order of the piles: the computer team's win rate "
        "with its 95% interval, per level and player count and with the player counts pooled.",
        caption, figures.skill_ladder(ladder, policies, subtitle),
        [Table("skill-ladder", "Win rate of every policy per level and player count (95% CI)", ladder,
               [PLAYERS, LEVEL, Spread("policy", policies, _rate, on=("players", "level"))],
               per=("players", "level"), order=by_players)],
        " ".join(seer_notes(policies)))


def _gap_points(row):
    """'+16.6 [+13.4, +19.7]'."""
    return f"{points(row['gap'], 1)} {bracket(row['gap_low'], row['gap_high'], signed=True)}"


def _gap(gap, caption):
    """Only with the clairvoyant reference and a legal policy."""
    if gap.empty:
        return None
    return Section(
        "clairvoyant-gap", "The clairvoyant against the best legal policy",
        "Per level, the legal policy with the highest win rate (player counts pooled) against the clairvoyant "
        "reference: the paired difference of their win rates over the same deals, with its 95% interval; r is "
        "the correlation of their per-game wins.",
        caption, None,
        [Table("clairvoyant-gap", "Clairvoyant minus the best legal policy of the level (paired: the same deals)",
               gap, [LEVEL, PLAYERS,
                     Column("Clairvoyant", lambda r: f"{r['clairvoyant']} {percent(r['clairvoyant_rate'], 1)}"),
                     Column("Best legal policy", lambda r: f"{r['best']} {percent(r['best_rate'], 1)}"),
                     Column("Difference (points, 95% CI)", _gap_points),
                     Column("r", lambda r: correlation(r["correlation"])),
                     Column("Games", lambda r: count(r["games"]))])])


DEAL_NOTE = ("Span, trimmed (5–95%) span: of the per-deal win rates; outliers: the deals a binomial test at 5% "
             "rejects for the mean rate; deal share: the deal's share of the outcome's variance; H, H|deal: the "
             "outcome's entropy in bits before and once the deal is known.")


def _deal_share(row):
    """The deal's share of the outcome's variance, or what leaves it undefined: no replay won, or all."""
    if np.isfinite(row["deal_share"]):
        return percent(row["deal_share"], 1)
    return "none won" if row["mean_win"] == 0 else "all won"


def _deals(tables):
    """Only when deals were replayed."""
    deals = tables["deals"]
    if deals.empty:
        return None
    first = deals.iloc[0]
    replays = (f"{plural(int(first['deals']), 'deal')} per level and player count, each replayed {first['repeats']} "
               f"times by {first['replayer']} (only its random stream differs)")
    levels = sorted(dict.fromkeys(deals["level"]), key=level_position)
    return Section(
        "deals", "Per-deal difficulty",
        "How much of a game the deal decides: the first deals of every level and player count replayed by one "
        "policy, only its random stream varying. Never won: by no ladder policy (the clairvoyant included) nor any "
        "replay; always won: by every replay. The deal's share of the variance is 0 when the deal does not matter "
        "and 1 when it decides every game.",
        f"{replays}.", figures.deal_difficulty(tables["distributions"], levels, replays),
        [Table("deal-difficulty", "Per-deal difficulty per level and player count (95% CI)", deals, [
            LEVEL, PLAYERS, Column("Mean win p", lambda r: _rate(r, "mean_win")),
            Column("Never won", lambda r: _rate(r, "never_won")),
            Column("Always won", lambda r: _rate(r, "always_won")),
            Column("Span", lambda r: f"{r['span']:.2f}"), Column("Trimmed span", lambda r: f"{r['trimmed_span']:.2f}"),
            Column("Outliers", lambda r: percent(r["outliers"], 1)),
            Column("Deal share", _deal_share),
            Column("H", lambda r: f"{r['entropy']:.2f}"),
            Column("H|deal", lambda r: f"{r['entropy_given_deal']:.2f}")])],
        DEAL_NOTE)
