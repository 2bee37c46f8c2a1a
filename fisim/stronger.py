"""Would a stronger team agree? A sweep's headline conclusions, as its report states them, checked
under a stronger player on a sample of the same deals.

A conclusion rests on arms: the cells a report pools into one win rate and compares (a player count
at a level, a team over the levels, an island, a rule reading over the levels and player counts).
The check plays the first games of the arms' cells again, by the published player (the sweep's
first policy: a replay of the sweep's own games, which the check confirms game by game) and by the
stronger one, into one results store per kind of conclusion beside the sweep's
(DIR/stronger/NAME/KIND, NAME the stronger player's name as a folder's: fisim.sweeping.run_sweep,
so resumable, Ctrl-C safe and grown by a larger sample), under the sweep's seed: game i is the same
deal for both players and for the sweep. Every arm gets at least the games asked for, spread evenly
over its cells. Each stronger player has its folder, so that each check has its own sample: a
search's few hundred games a win rate beside a faster player's thousands (a store keeps one
target for all its cells). A check of an earlier fisim kept its stores in DIR/stronger itself:
they are read there, and grown there by their stronger player.

One arm is sampled otherwise: a player count whose cells are every team of that count (a sweep of
`--teams all`). Its cells share their deals, so the first games of each would be a few deals seen
by every team; the check plays instead one cell of that level and count with a team dealt at
random each game (every team equally likely, as the report's rate weighs them; the seats in a
random order), both players: as many deals as games, one team each.

A conclusion is a set of claims "arm A wins more than arm B", in the report's order (its point
estimates); for a rule reading, its effect against the official rules, sign and size. A claim is
checked by the stronger player's difference A − B on the sample, with its 95% interval:

    holds          it excludes 0 on the report's side; or neither it nor the report's excludes 0
                   (neither player orders the two)
    does not hold  it excludes 0 on the other side (the order reverses)
    not settled    it includes 0 where the report's excludes 0 (the sample cannot tell)

and a rule reading's size holds unless the change of its effect from the published player to the
stronger one, paired on the same deals, excludes 0. A conclusion holds when every claim of it
holds, does not hold when one does not, and is not settled otherwise.

Every interval counts deals, not games: game i of every cell is the same deal, so an arm's games
of one deal (its teams, levels, player counts) are one observation, their mean; two arms are
compared deal by deal. An arm of many cells thus has as many deals as each of its cells.
"""
import json
import math
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from fisim.comparison import mean_difference
from fisim.errors import ConfigError
from fisim.reporting import data
from fisim.rules.config import level_position
from fisim.rules.constants import N_ROLES
from fisim.stats import per_deal

FOLDER = "stronger"             # DIR/stronger/NAME: a check's stores, one per kind of conclusion
SECONDS = "seconds.json"        # DIR/stronger/NAME/seconds.json: per policy, the games it played there and their time
KINDS = ("player-counts", "teams", "islands", "rules")
HOLDS, UNSETTLED, FAILS = "holds", "not settled", "does not hold"
VERDICTS = (HOLDS, UNSETTLED, FAILS)        # best first
MATCH = ("level", "players", "team")        # what pairs the cells of two arms on the same deals


@dataclass
class Arm:
    """Cells of the sweep pooled into one win rate: {what pairs a cell with another arm's: the
    sweep's cell key}; `sample`, the manifest record of a cell the check plays in their stead (a
    random team for a player count of every team), or None: the check plays the arm's cells."""
    label: str
    cells: dict
    sample: dict = None


@dataclass
class Claim:
    """`above` wins more than `below` in the report (a rule reading's claim: its effect, the
    reading less its baseline, of either sign, and its size)."""
    kind: str
    conclusion: str
    above: Arm
    below: Arm
    paired: bool
    size: bool = False


@dataclass
class Part:
    """The games one kind of conclusion needs: the sweep's cells (manifest records) and the games
    of each, played into `path`."""
    kind: str
    path: Path
    records: list
    games: int


@dataclass
class Check:
    """A sweep's conclusions checked under one stronger policy: one row per claim and per
    conclusion (docs/report-tables.md), and what the check cost."""
    published: str              # NAME@VERSION
    stronger: str
    claims: pd.DataFrame
    conclusions: pd.DataFrame
    cost: dict                  # games and seconds of each player in the check; the sweep's games of the published
    replay: tuple               # (games replayed, of them won or lost otherwise than in the sweep)
    missing: int                # cells the conclusions rest on that the check has not played
    sources: list               # the check's stores, as the report names them


# --- the conclusions ---------------------------------------------------------------------------

def claims(sweep):
    """Every claim of the sweep's headline conclusions (fisim.reporting.data.Sweep), kind by kind."""
    return [*_player_counts(sweep), *_teams(sweep), *_islands(sweep), *_rules(sweep)]


def _keyed(cells, by=MATCH):
    return {tuple(r[k] for k in by) if len(by) > 1 else r[by[0]]: r["cell"] for _, r in cells.iterrows()}


def players_label(sweep, players):
    """'3 players', or '1 player (solo)' for a count the main slice shows under other rules."""
    rules = sweep.main_rules(players)
    note = f" ({rules})" if rules != sweep.baseline("rules") else ""
    return f"{players} player{'s' if players != 1 else ''}{note}"


def _player_counts(sweep):
    """At each level, the player counts in the order of the main slice's win rates (teams pooled),
    each above the next. Not matched cell by cell (the counts have different teams): each count's
    cells are pooled per deal (_claim_row)."""
    main, table = sweep.main(), data.by_level(sweep)
    if table["players"].nunique() < 2:
        return []
    out = []
    for level in sorted(set(table["level"]), key=level_position):
        rows = table[table["level"] == level].sort_values(["rate", "players"], ascending=[False, True], kind="stable")
        arms = []
        for p in rows["players"]:
            cells = _keyed(main[(main["level"] == level) & (main["players"] == p)], ("team",))
            arms.append(Arm(players_label(sweep, p), cells, _random_team(sweep, p, cells)))
        text = f"{level}: " + " > ".join(arm.label for arm in arms)
        out += [Claim("player-counts", text, a, b, False) for a, b in zip(arms, arms[1:])]
    return out


def _random_team(sweep, players, cells):
    """The manifest record of the cell of random teams that samples a player count whose `cells`
    ({team: key}) are every team of `players` adventurers, else None."""
    if len(cells) != math.comb(N_ROLES, players) or "random" in cells:
        return None
    from fisim.store import manifest_for
    record = next(r for r in sweep.manifest["cells"] if r["key"] == next(iter(cells.values())))
    cell = replace(cell_of(record, sweep.manifest), team=None)
    return manifest_for([cell], sweep.manifest["seed"], {}, False)["cells"][0]


def _teams(sweep):
    """Per player count, the strongest team above the next and the one before the last above the
    weakest (levels pooled), paired level by level."""
    ranked = data.teams(sweep)
    if ranked is None:
        return []
    ranking, _ = ranked
    main = sweep.main()
    out = []
    for players, group in ranking.groupby("players"):
        if not group["mark"].any():
            continue
        teams = list(group["team"])
        arm = {t: Arm(t, _keyed(main[(main["players"] == players) & (main["team"] == t)], ("level",))) for t in teams}
        label = players_label(sweep, players)
        out.append(Claim("teams", f"strongest team at {label}: {teams[0]}", arm[teams[0]], arm[teams[1]], True))
        out.append(Claim("teams", f"weakest team at {label}: {teams[-1]}", arm[teams[-2]], arm[teams[-1]], True))
    return out


def _islands(sweep):
    """The islands, easiest first (levels, players and teams pooled), each above the next, paired
    on the same deals."""
    if len(sweep.values("layout")) < 2:
        return []
    order = list(data.by_layout(sweep)["layout"])[::-1]
    cells = data.island_cells(sweep)
    arms = [Arm(name, _keyed(cells[cells["layout"] == name])) for name in order]
    return [Claim("islands", "the islands' order, easiest first", a, b, True) for a, b in zip(arms, arms[1:])]


def _rules(sweep):
    """Each rule reading against its baseline (the official rules), levels and players pooled,
    paired on the same deals: its sign and size."""
    result = data.comparison(sweep, "rules", lambda v: not data.set_cell(v))
    if result is None:
        return []
    cells = result.cells
    out = []
    for _, row in result.overall.iterrows():
        reading, base = Arm(row["rules"], _keyed(cells[cells["rules"] == row["rules"]])), \
            Arm(row["baseline"], _keyed(cells[cells["rules"] == row["baseline"]]))
        out.append(Claim("rules", f"{row['rules']} against {row['baseline']}", reading, base, True, size=True))
    return out


# --- the games ---------------------------------------------------------------------------------

def published_policy(sweep):
    """The published player: the sweep's first policy, as its cells name it (a name or a file)."""
    label = sweep.baseline("policy")
    from fisim.store import policy_labels
    return next(given for given, shown in policy_labels(sweep.manifest).items() if shown == label)


def check_folder(directory, stronger):
    """The folder of the check of the sweep store `directory` under policy `stronger`:
    DIR/stronger/NAME (its name with each run of other characters than letters and digits a '-',
    search-8-planner), or DIR/stronger itself where a check of an earlier fisim played it there."""
    from fisim.reporting.document import slug
    from policies import resolve
    policy = resolve(stronger)
    folder = Path(directory) / FOLDER
    if any(policy.given in _policies(folder / kind) for kind in KINDS):
        return folder
    return folder / slug(policy.NAME)


def _policies(path):
    """The policies (as cells name them) of the store at `path`, none without a store."""
    from fisim.store import Store
    manifest = Store(path).made()
    return {record["policy"] for record in manifest["cells"]} if manifest else set()


def check_folders(directory):
    """The folders under DIR/stronger that hold a check's stores (DIR/stronger itself first: an
    earlier fisim's), by name."""
    from fisim.store import Store
    folder = Path(directory) / FOLDER
    found = [folder, *sorted(p for p in folder.iterdir() if p.is_dir())] if folder.is_dir() else []
    return [f for f in found if any(Store(f / kind).manifest_path.exists() for kind in KINDS)]


def plan(folder, sweep, games):
    """The Parts of a check in `folder` of the sweep `sweep` with `games` games per arm (a part
    whose store already holds more plays up to what it holds)."""
    from fisim.store import Store
    by_kind = {}
    for claim in claims(sweep):
        by_kind.setdefault(claim.kind, []).append(claim)
    records = {r["key"]: r for r in sweep.manifest["cells"]}
    played = sweep.cells.set_index("cell")["games"]
    parts = []
    for kind, mine in by_kind.items():
        arms = list({id(arm): arm for claim in mine for arm in (claim.above, claim.below)}.values())
        played_by = [[arm.sample] if arm.sample else [records[k] for k in arm.cells.values()] for arm in arms]
        keys = list(dict.fromkeys(key for arm in arms for key in arm.cells.values()))
        per_cell = math.ceil(games / min(map(len, played_by)))
        path = Path(folder) / kind
        per_cell = min(max(per_cell, Store(path).target_games()), int(played[keys].min()))
        parts.append(Part(kind, path, list({r["key"]: r for rs in played_by for r in rs}.values()), per_cell))
    return parts


def cell_of(record, manifest, policy=None):
    """The Cell of a sweep's manifest record, played by `policy` (default: the record's own):
    the same deals. ConfigError when the record cannot be dealt again (a layout file moved or
    changed)."""
    from fisim.cell import Cell
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import BUILTIN_NAMES
    from fisim.rules.variant import make_variant
    from fisim.store import file_digest
    layout = record["layout"]
    if layout not in BUILTIN_NAMES:
        found = [p for p, digest in manifest["files"].items()
                 if Path(p).name == layout and Path(p).is_file() and file_digest(p) == digest]
        if not found:
            raise ConfigError(f"the sweep's island file {layout} is not where the sweep read it, as it was: "
                              "its deals cannot be played again")
        layout = found[0]
    variant = record.get("variant")
    switches = tuple(sorted(s for s in record["rules"].split("+") if s not in ("official", variant)))
    team = None if record["team"] == "random" else tuple(record["team"].split("+"))
    if variant:
        plain = GameConfig(players=record["players"], level=record["level"], switches=frozenset(switches)).parameters
        numbers = {k: v for k, v in record["parameters"].items()
                   if v != (list(plain[k]) if isinstance(plain[k], tuple) else plain[k])}
        variant = make_variant(numbers, variant, f"the sweep's variant {variant}")
    cell = Cell(layout, record["level"], record["players"], team, record["policy"], switches, variant or None,
                record.get("repeat", 0))
    if cell.key != record["key"]:
        raise ConfigError(f"cannot deal the sweep's cell [{record['level']}, {record['players']} players, "
                          f"{record['team']}, {record['rules']}] again with this fisim")
    return cell if policy is None else Cell(cell.layout, cell.level, cell.players, cell.team, policy, cell.rules,
                                            cell.variant, cell.repeat)


def prepare(directory, stronger, games):
    """What the check of the sweep store `directory` under policy `stronger` plays, checked before
    anything is: [(Part, published cells, stronger cells)] and the sweep. ConfigError (a
    StoreError) in one line for a policy that is the published one, a sweep with no conclusion to
    check or a store the check cannot extend."""
    from fisim.reporting import ladder
    from fisim.store import Store, manifest_for
    from policies import resolve
    if ladder.is_ladder(directory):
        raise ConfigError(f"--stronger checks a sweep store's conclusions; {directory} is a ladder's directory")
    sweep = data.read(directory)
    published = published_policy(sweep)
    if resolve(stronger).given == resolve(published).given:
        raise ConfigError(f"--stronger {stronger} is the published player; give a stronger one, such as "
                          f"search:8/{published}")
    parts = plan(check_folder(directory, stronger), sweep, games)
    if not parts:
        raise ConfigError(f"nothing to check in {directory}: its report orders no player counts, teams, islands "
                          "or rule readings")
    planned = []
    for part in parts:
        cells = [[cell_of(r, sweep.manifest, policy) for r in part.records] for policy in (published, stronger)]
        Store(part.path).extended_by(manifest_for(cells[0] + cells[1], sweep.manifest["seed"],
                                                  {"games": part.games}, False))
        planned.append((part, *cells))
    return planned, sweep


def play(directory, stronger, games, run=None):
    """Play (or resume, or grow) the check of the sweep store `directory` under policy `stronger`
    with `games` games per arm. `run(cells, path, seed, target)` plays cells into a store
    (default fisim.sweeping.run_sweep, the command line's with its progress bar); each player's
    games and time (its compile and the loading of its code left out) are added to
    the check's folder's seconds.json, also when Ctrl-C stops it."""
    from fisim.cell import play as play_games
    from fisim.sweeping import run_sweep, warm
    planned, sweep = prepare(directory, stronger, games)
    run = run or (lambda cells, path, seed, target: run_sweep(cells, path, seed, target))
    seed = sweep.manifest["seed"]
    for part, *arms in planned:
        for cells in arms:
            warm(cells)
            play_games(cells[0], seed, 0, 1, threads=1)     # loads the compiled code: its time is not the games'
            _timed(part.path.parent, cells, lambda: run(cells, part.path, seed, {"games": part.games}), part.path)


def _timed(folder, cells, run, path):
    """run(), its games and seconds added to the policy's in folder/SECONDS when it played any (a
    run that finds its store complete would add its overhead to the games' time)."""
    before = _games(path, cells)
    start = time.perf_counter()
    try:
        run()
    finally:
        seconds = time.perf_counter() - start
        played = _games(path, cells) - before
        if played:
            _add_spent(folder, cells[0].policy.label, played, seconds)


def _add_spent(folder, label, games, seconds):
    """Add `games` and `seconds` to policy `label`'s in folder/SECONDS."""
    from fisim.files import atomic_write
    file = folder / SECONDS
    spent = json.loads(file.read_text()) if file.exists() else {}
    mine = spent.setdefault(label, {"games": 0, "seconds": 0.0})
    mine["games"] += games
    mine["seconds"] += seconds
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(file, lambda p: p.write_text(json.dumps(spent, indent=1, sort_keys=True)))


def _games(path, cells):
    """The games of `cells` that the store at `path` holds (0 with no store)."""
    from fisim.store import Store
    from fisim.tables import load
    if not Store(path).manifest_path.exists():
        return 0
    frame = load(path)
    return int(frame.loc[frame["cell"].isin([c.key for c in cells]), "games"].sum())


# --- the verdicts ------------------------------------------------------------------------------

def sign_verdict(report, stronger):
    """A claim's verdict from the report's (difference, low, high) and the stronger player's."""
    d, low, high = report
    s, s_low, s_high = stronger
    if s_low > 0 or s_high < 0:
        return HOLDS if d == 0 or (s > 0) == (d > 0) else FAILS
    return HOLDS if low <= 0 <= high else UNSETTLED


def size_verdict(change):
    """A rule reading's size: it holds unless the change of its effect excludes 0."""
    _, low, high = change
    return HOLDS if low <= 0 <= high else FAILS


def worst(verdicts):
    return max(verdicts, key=VERDICTS.index, default=HOLDS)


def checks(directory, sweep):
    """The checks of the sweep store `directory` (its Sweep read) that DIR/stronger holds: one
    Check per stronger policy played in each of its folders, none when nothing was."""
    return [check for folder in check_folders(directory) for check in _checks_in(directory, folder, sweep)]


def _checks_in(directory, folder, sweep):
    """The Checks whose stores are in `folder`, one per stronger policy played there."""
    from fisim.store import Store, policy_labels, read_store
    from fisim.tables import win_bits
    games = {}          # (kind, given policy, cell settings) -> per-game wins
    labels = {}
    sources = []
    for kind in KINDS:
        if not Store(folder / kind).manifest_path.exists():
            continue
        manifest, chunks = read_store(folder / kind)
        labels.update(policy_labels(manifest))
        sources.append(f"{sweep.name}/{(folder / kind).relative_to(directory).as_posix()}")
        for record in manifest["cells"]:
            games[(kind, record["policy"], _settings(record))] = win_bits(chunks, record["key"], manifest["target"])
    published = published_policy(sweep)
    strongers = dict.fromkeys(p for (_, p, _) in games if p != published)
    spent = json.loads((folder / SECONDS).read_text()) if (folder / SECONDS).exists() else {}
    return [_check(sweep, games, published, s, labels, spent, sources) for s in strongers]


def _settings(record):
    return tuple(record[k] for k in ("layout", "level", "players", "team", "rules"))


def _check(sweep, games, published, stronger, labels, spent, sources):
    records = {r["key"]: r for r in sweep.manifest["cells"]}
    rows, missing, replayed = [], set(), {}

    def played(kind, record):
        """The two players' games of a cell of the check, the same number of each; None when the
        check has not played it."""
        pub, strong = (games.get((kind, p, _settings(record))) for p in (published, stronger))
        if pub is None or strong is None or not len(pub) or not len(strong):
            missing.add(record["key"])
            return None
        n = min(len(pub), len(strong))
        return pub[:n], strong[:n]

    for claim in claims(sweep):
        arms = []
        for arm in (claim.above, claim.below):
            report = {match: sweep.bits[key] for match, key in arm.cells.items()}
            if arm.sample:
                sample = played(claim.kind, arm.sample)
                arms.append((report, {None: sample} if sample else {}))
                continue
            sample = {}
            for match, key in arm.cells.items():
                found = played(claim.kind, records[key])
                if found:
                    pub = found[0]
                    replayed[(claim.kind, key)] = (len(pub), int(np.count_nonzero(pub != sweep.bits[key][:len(pub)])))
                    sample[match] = found
            arms.append((report, sample))
        if all(sample for _, sample in arms):
            rows.append(_claim_row(claim, *arms))
    claim_rows = pd.DataFrame(rows)
    conclusions = pd.DataFrame([_conclusion_row(kind, text, group) for (kind, text), group in
                                claim_rows.groupby(["kind", "conclusion"], sort=False)]) if rows else pd.DataFrame()
    label = labels[stronger]
    cost = {"stronger_games": spent.get(label, {}).get("games", 0), "stronger_seconds": spent.get(label, {}).get(
        "seconds", 0.0), "published_games": spent.get(labels[published], {}).get("games", 0),
        "published_seconds": spent.get(labels[published], {}).get("seconds", 0.0),
        "sweep_games": int(sweep.cells.loc[sweep.cells["policy"] == sweep.baseline("policy"), "games"].sum())}
    replay = (sum(n for n, _ in replayed.values()), sum(k for _, k in replayed.values()))
    return Check(labels[published], label, claim_rows, conclusions, cost, replay, len(missing), sources)


def _claim_row(claim, above, below):
    """A claim's numbers: the report's difference (the sweep's games), the published and the
    stronger player's on the sample, and the change between them, each with its 95% interval.
    An arm is (its sweep games {match: wins}, its sample {match: (published wins, stronger wins)}).

    The unit is the deal: game i of every cell is the same deal (common random numbers), so an
    arm's games of one deal, at its teams, levels or player counts, are not independent. Each
    arm's win rate is taken per deal, the mean over its cells (for a paired claim, the cells both
    arms have), and the two arms are compared deal by deal."""
    if claim.paired:
        both = [m for m in above[1] if m in below[1]]
        above, below = (tuple({m: part[m] for m in both} for part in arm) for arm in (above, below))
    (report_a, sample_a), (report_b, sample_b) = above, below
    report = mean_difference(*_per_deal(report_a, report_b))
    pub_a, pub_b = _per_deal(*({m: g[0] for m, g in sample.items()} for sample in (sample_a, sample_b)))
    str_a, str_b = _per_deal(*({m: g[1] for m, g in sample.items()} for sample in (sample_a, sample_b)))
    published = mean_difference(pub_a, pub_b)
    strong = mean_difference(str_a, str_b)
    change = mean_difference(str_a - pub_a, str_b - pub_b)
    sign = sign_verdict(report, strong)
    size = size_verdict(change) if claim.size else ""
    row = {"kind": claim.kind, "conclusion": claim.conclusion, "above": claim.above.label,
           "below": claim.below.label, "paired": claim.paired,
           "random_teams": bool(claim.above.sample or claim.below.sample),
           "games_above": len(pub_a), "games_below": len(pub_b)}
    for name, (d, low, high) in (("report", report), ("published", published), ("stronger", strong)):
        row.update({f"{name}_difference": d, f"{name}_difference_ci_low": low, f"{name}_difference_ci_high": high})
    row.update(change=change[0], change_ci_low=change[1], change_ci_high=change[2], sign=sign, size=size,
               verdict=worst([sign, size] if size else [sign]))
    return row


def _per_deal(*arms):
    """Each arm's per-deal win rate ({match: wins} of its cells): on the deals every cell of every
    arm played, the mean over the arm's cells (fisim.stats.per_deal)."""
    n = min(len(won) for arm in arms for won in arm.values())
    return [np.divide(*per_deal([won[:n] for won in arm.values()])) for arm in arms]


def _conclusion_row(kind, text, group):
    counts = group["verdict"].value_counts()
    return {"kind": kind, "conclusion": text, "claims": len(group), "held": int(counts.get(HOLDS, 0)),
            "unsettled": int(counts.get(UNSETTLED, 0)), "failed": int(counts.get(FAILS, 0)),
            "verdict": worst(group["verdict"])}
