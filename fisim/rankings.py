"""Do the conclusions hold for a stronger player? `fisim compare --agreement A,B`.

A sweep that plays two policies over the same cells (teams, islands, ...) ranks those cells twice.
This measures how far the two rankings agree: Spearman's rank correlation of the two policies' win
rates per group of the other settings (and pooled over all of them), with a percentile bootstrap
interval, and the pairs of cells whose order flips significantly. With a baseline policy C (played
on the same cells), also whether A ranks as alike to B as C does: the difference of A's and C's
correlations with B, its interval from the same resamples (a paired comparison: the same games of
all three).

On the same deals, two policies' wins correlate game by game, the more so the more alike they play
(search over expert with expert, whose options and rollouts it plays, more than the planner with
search; docs/benchmarks.md has the measured correlations): their rates' sampling noise is partly
shared, which raises their correlation above what their rankings share (above either's self correlation). Disjoint
deals remove that: B ranks by the second half of each cell's games, A (and the baseline) by the
first.

The bootstrap resamples each cell's games with replacement, the same games for both policies (game
i of both starts from the same deal), so the interval carries the sampling noise of both rankings.
A resample's rates depend only on how many of its games end in each joint outcome (both policies
won, only the first, ...: four, eight with a baseline), so it is drawn as a multinomial over those
outcomes, with the shares the cell's games have: the same distribution as drawing the games, at a
cost that does not grow with them. Sampling noise alone keeps a ranking from agreeing perfectly
even with itself; each policy's "self" correlation (two independent resamples of its own games) is
that ceiling, the number to read the policies' correlation against. A flip is a pair of cells that
the two policies order oppositely where each policy's own paired difference has a 95% interval
excluding zero (not corrected for the number of pairs: at most about 5% x 5% of unrelated pairs
flip by chance).
"""
from collections import namedtuple

import numpy as np
import pandas as pd

from fisim.arguments import flag, strings
from fisim.comparison import AXES, BY, paired_difference
from fisim.errors import ConfigError, StoreError
from fisim.grid import policy_name
from fisim.stats import wilson
from fisim.store import read_store
from fisim.tables import cell_table, win_bits
from policies import PolicyError

POOLED = "all"
Agreement = namedtuple("Agreement", "by policies baseline disjoint items groups flips")


def compare_options(by, agreement=None, baseline=None, disjoint=False, option=""):
    """(the two policies of `agreement` "A,B" (or [A, B]) as their cells name them, the baseline's
    name), both None without `agreement`: compare's options checked alike for the command line and
    the Python API, a ConfigError in one line otherwise (`option` "--": named as the command line's)."""
    name = (lambda argument: f"--{argument}") if option else (lambda argument: argument)
    if not isinstance(by, str) or by not in BY:
        raise ConfigError(f"cannot compare by {by!r}; choose one of: {', '.join(BY)}")
    flag(name("disjoint"), disjoint)
    if agreement is None:
        if baseline is not None:
            raise ConfigError(f"{name('baseline')} C goes with {name('agreement')} A,B (does A rank as alike to B as "
                              "C does?)")
        if disjoint:
            raise ConfigError(f"{name('disjoint')} goes with {name('agreement')} A,B (B ranks by other deals than A)")
        return None, None
    if by in ("policy", "role"):
        raise ConfigError(f"{name('agreement')} ranks cells along another setting than the policies; {name('by')} "
                          f"{by} is not one: choose layout, level, players, team or rules")
    pair = policy_pair(agreement, name)
    return pair, None if baseline is None else baseline_policy(baseline, pair, name)


def policy_pair(agreement, name=lambda argument: argument):
    """The two policies of --agreement "A,B" (or [A, B]) as their cells name them, or a ConfigError."""
    text = ",".join(strings(name("agreement"), agreement, "expert,search:8"))
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ConfigError(f"{name('agreement')} takes two different policies, A,B (e.g. expert,search:8), not {text!r}")
    try:
        return [policy_name(p) for p in names]
    except PolicyError as exc:
        raise ConfigError(f"{name('agreement')}: {exc}") from None


def baseline_policy(baseline, pair, name=lambda argument: argument):
    """The policy of --baseline C as its cells name it, not one of `pair`, or a ConfigError."""
    try:
        base = policy_name(",".join(strings(name("baseline"), baseline, "expert")).strip())
    except PolicyError as exc:
        raise ConfigError(f"{name('baseline')}: {exc}") from None
    if base in pair:
        raise ConfigError(f"{name('baseline')} {baseline} is one of {name('agreement')}'s policies ({','.join(pair)}); "
                          "choose a third")
    return base


def rank_agreement(path, by, policies, baseline=None, disjoint=False, boots=2000, seed=0, progress=None):
    """The agreement of the two `policies`' rankings of the cells of the store at `path` along `by`
    (an axis other than policy), and the baseline's if one is named: an Agreement of the items,
    groups and flips tables (see agreement). A policy is named as its cells' NAME@VERSION or by its
    NAME alone. progress(1, total) as each of the store's chunk files is read (the longest part)."""
    manifest, chunks = read_store(path, progress)
    cells = cell_table(manifest, chunks)
    played = list(dict.fromkeys(cells["policy"]))
    ranking = _ranking(policies, baseline)
    label = {p: next((q for q in played if p in (q, q.rpartition("@")[0])), None) for p in ranking}
    missing = [p for p in ranking if label[p] is None]
    if missing:
        raise StoreError(f"{path} has no games of policy {missing[0]}; it has: {', '.join(played)}")
    if cells[by].nunique() < 2:     # a random-team sweep: its correlation would rank other settings
        raise StoreError(f"{path} has one {by} ({cells[by].iloc[0]}) in every cell: nothing to rank by {by}; choose "
                         f"a setting the sweep varies" + (" (a sweep of --teams all or a list of teams ranks teams)"
                                                          if by == "team" else ""))
    others = [a for a in AXES if a not in (by, "policy")]
    varying = [a for a in others if cells[a].nunique() > 1]         # what names a group
    items, wins = [], []
    for key, group in cells.groupby([*others, by], sort=False, observed=True):
        mine = group.set_index("policy")
        if not all(label[p] in mine.index for p in ranking):
            continue
        bits = [win_bits(chunks, mine.loc[label[p], "cell"], manifest["target"]) for p in ranking]
        n = min(len(b) for b in bits)
        if n == 0:
            raise StoreError(f"cell [{', '.join(map(str, key))}] has no finished games in {path}; run the same "
                             "sweep again to complete it")
        setting = dict(zip(others, key[:-1]))
        items.append({"group": ", ".join(f"{a} {setting[a]}" for a in varying) or POOLED, by: key[-1]})
        wins.append(np.array([b[:n] for b in bits]))
    if len(items) < 2:
        raise StoreError(f"{path} has fewer than two cells played by {', '.join(ranking)} to rank by {by}")
    return agreement(pd.DataFrame(items), wins, by, policies, baseline, disjoint, boots, seed)


def agreement(items, wins, by, policies, baseline=None, disjoint=False, boots=2000, seed=0):
    """The agreement of two policies' rankings of `items` (a frame with `group` and `by`), given per
    item a (2, n) boolean array of both policies' wins on the same n games ((3, n) with a baseline,
    its wins last). Returns an Agreement: items (each policy's rate, 95% interval and rank within its
    group, the change of rank), groups (per group and pooled: items, Spearman's correlation, its
    bootstrap 95% interval, each policy's self correlation; with a baseline, its correlation with
    the second policy and the difference of the first's and the baseline's, with its interval) and
    flips (significant opposite orders within a group). Disjoint: the second policy ranks by the
    second half of each item's games, the others by the first half."""
    a, b = policies
    if disjoint:
        wins = [_disjoint_halves(w) for w in wins]
    ranking = _ranking(policies, baseline)
    rng = np.random.default_rng(seed)
    items = items.reset_index(drop=True).copy()
    games = np.array([w.shape[1] for w in wins])
    rates = np.array([w.mean(axis=1) for w in wins])                        # (items, policies)
    resampled, again = np.empty((2, boots, len(wins), len(ranking)))
    for i, w in enumerate(wins):
        for out in (resampled, again):          # the same resampled games for every policy
            out[:, i] = _resampled_rates(rng, w, boots)
    for col, policy in enumerate(ranking):
        items[f"rate_{policy}"] = rates[:, col]
        bounds = [wilson(round(r * n), n) for r, n in zip(rates[:, col], games)]
        items[f"low_{policy}"], items[f"high_{policy}"] = [low for low, _ in bounds], [high for _, high in bounds]
        items[f"rank_{policy}"] = items.groupby("group")[f"rate_{policy}"].rank(ascending=False, method="average")
    items["games"] = games
    items["rank_change"] = items[f"rank_{b}"] - items[f"rank_{a}"]
    names = list(items["group"].unique())
    rows = []
    for name in names + ([POOLED] if len(names) > 1 else []):
        index = items.index if name == POOLED else items.index[items["group"] == name]
        boot = _spearman(resampled[:, index, 0], resampled[:, index, 1])
        low, high = _percentiles(boot)
        row = {"group": name, "items": len(index), "spearman": _spearman(rates[index, 0], rates[index, 1]),
               "low": low, "high": high,
               **{f"self_{p}": _median(_spearman(resampled[:, index, col], again[:, index, col]))
                  for col, p in enumerate(ranking)}}
        if baseline:        # A's agreement with B less C's, resample by resample
            row[f"spearman_{baseline}"] = _spearman(rates[index, 2], rates[index, 1])
            row["difference"] = row["spearman"] - row[f"spearman_{baseline}"]
            row["difference_low"], row["difference_high"] = _percentiles(
                boot - _spearman(resampled[:, index, 2], resampled[:, index, 1]))
        rows.append(row)
    return Agreement(by, tuple(policies), baseline, disjoint, items, pd.DataFrame(rows),
                     _flips(items, wins, by, policies))


def _ranking(policies, baseline):
    """The policies whose wins an item holds, in their rows' order: the two compared, then the baseline."""
    return [*policies, *([baseline] if baseline else [])]


def _disjoint_halves(wins):
    """An item's wins with the second policy's row taken from the second half of its games and the
    other rows from the first half."""
    half = wins.shape[1] // 2
    split = wins[:, :half].copy()
    split[1] = wins[1, half:2 * half]
    return split


def _resampled_rates(rng, wins, boots):
    """The policies' win rates over `boots` bootstrap resamples of their n games, (boots, policies):
    per resample, the games of each joint outcome (which policies won) drawn as a multinomial over
    the outcomes' shares, which is what drawing n games with replacement gives, in time and memory
    that do not grow with n."""
    policies, n = wins.shape
    outcome = (wins.astype(np.int64) << np.arange(policies)[:, None]).sum(axis=0)      # bit j: policy j won
    shares = np.bincount(outcome, minlength=1 << policies) / n
    won = (np.arange(1 << policies)[:, None] >> np.arange(policies)) & 1                 # (outcomes, policies)
    return rng.multinomial(n, shares, size=boots) @ won / n


def _spearman(x, y):
    """Spearman's correlation (average ranks) of x and y along their last axis; NaN where either
    is constant."""
    rx, ry = _ranks(np.atleast_2d(x)), _ranks(np.atleast_2d(y))
    rx, ry = rx - rx.mean(axis=1, keepdims=True), ry - ry.mean(axis=1, keepdims=True)
    scale = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(scale > 0, (rx * ry).sum(axis=1) / scale, np.nan)
    return r if np.ndim(x) > 1 else float(r[0])


def _ranks(x):
    """Average ranks along the last axis of a 2-d array (ties share the mean of their ranks)."""
    return pd.DataFrame(x).rank(axis=1, method="average").to_numpy()


def _percentiles(values):
    """The 2.5% and 97.5% percentiles of the finite values (NaN, NaN if none)."""
    finite = values[np.isfinite(values)]
    return tuple(np.percentile(finite, [2.5, 97.5])) if len(finite) else (np.nan, np.nan)


def _median(values):
    """The median of the finite values (NaN if none)."""
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if len(finite) else np.nan


def _flips(items, wins, by, policies):
    """The pairs of items of a group that the two policies order oppositely, each policy's paired
    difference (the same games) with a 95% interval excluding zero."""
    rows = []
    for _, group in items.groupby("group", sort=False):
        index = list(group.index)
        for k, i in enumerate(index):
            for j in index[k + 1:]:
                n = min(wins[i].shape[1], wins[j].shape[1])
                diffs = [paired_difference(wins[i][col, :n], wins[j][col, :n]) for col in range(2)]
                if (diffs[0][1] > 0 and diffs[1][2] < 0) or (diffs[0][2] < 0 and diffs[1][1] > 0):
                    row = {"group": group.loc[i, "group"], f"{by}_1": items.loc[i, by], f"{by}_2": items.loc[j, by],
                           "games": n}
                    for policy, (diff, low, high) in zip(policies, diffs):
                        row.update({f"difference_{policy}": diff, f"low_{policy}": low, f"high_{policy}": high})
                    rows.append(row)
    return pd.DataFrame(rows, columns=["group", f"{by}_1", f"{by}_2", "games",
                                       *[f"{k}_{p}" for p in policies for k in ("difference", "low", "high")]])
