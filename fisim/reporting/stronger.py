""""Would a stronger team agree?": a sweep report's section of its conclusions checked under a
stronger player (fisim.stronger), and their verdicts in At a glance, a conclusion that does not
hold flagged there."""
from fisim.formatting import count, count_range, duration, percent, plural, points, points_interval
from fisim.reporting.document import Column, Section, Table, slug
from fisim.stronger import FAILS, HOLDS, UNSETTLED, checks

TITLE = "Would a stronger team agree?"
KIND_NAMES = {"player-counts": "the order of the player counts at each level", "teams":
              "the strongest and weakest teams", "islands": "the islands' order", "rules":
              "each rule reading's sign and size"}
BEFORE = ("named-tiles", "tiles-")       # the section goes before the tile sections, else last


def add_to(report, directory, sweep):
    """Add the checks DIR/stronger holds to the Report of the sweep store `directory`: a section
    each, their lines in At a glance, their stores among the sources."""
    found = checks(directory, sweep)
    for check in found:
        if check.conclusions.empty:
            report.warnings.append(f"the check under {check.stronger} in {directory} has no games of the cells "
                                   "the report's conclusions rest on: run fisim report with --stronger again")
            continue
        section = _section(check, len(found) > 1)
        at = next((i for i, s in enumerate(report.sections) if s.id.startswith(BEFORE)), len(report.sections))
        report.sections.insert(at, section)
        report.highlights += section.glance
        report.sources += [s for s in check.sources if s not in report.sources]
        if check.missing:
            report.warnings.append(f"the check under {check.stronger} has not played {plural(check.missing, 'cell')} "
                                   "the report's conclusions now rest on: run fisim report with --stronger again")


def _difference(prefix):
    return lambda r: (f"{points(r[f'{prefix}_difference'], 1)} "
                      f"({points_interval(r[f'{prefix}_difference_ci_low'], r[f'{prefix}_difference_ci_high'], 1)})")


def _section(check, several):
    pub, strong = check.published, check.stronger
    name = slug(strong)
    claims = check.claims.assign(mark=[("does-not-hold" if v == FAILS else "") for v in check.claims["verdict"]])
    conclusions = check.conclusions.assign(
        mark=[("does-not-hold" if v == FAILS else "") for v in check.conclusions["verdict"]])
    kinds = [KIND_NAMES[k] for k in dict.fromkeys(check.conclusions["kind"])]
    text = (f"The report's headline conclusions — {', '.join(kinds)} — played again by a stronger team, {strong}, "
            f"on a sample of the same deals: the first games of the cells each conclusion rests on, played by "
            f"{strong} and by {pub} (a replay of the sweep's games), paired on the same deals{_random_note(check)}. "
            f"A conclusion is a set of claims 'A wins more than B' in the report's order. A claim holds when "
            f"{strong}'s difference A − B on the sample has a 95% interval that excludes 0 on the report's side, or "
            "when neither it nor the report's excludes 0 (neither player orders them); it does not hold when its "
            "interval excludes 0 on "
            "the other side; otherwise it is not settled (the sample cannot tell). A rule reading's size holds "
            f"unless the change of its effect from {pub} to {strong}, paired on the same deals, excludes 0. A "
            "conclusion holds when all its claims hold and does not hold when one does not; one that does not "
            "hold is flagged in At a glance.")
    deals = count_range([*check.claims["games_above"], *check.claims["games_below"]])
    caption = (f"policy {strong} against {pub}; {deals} deals per win rate compared (the first games of each "
               f"cell, the same for both); the report's differences from the sweep's games.")
    tables = [
        Table(f"stronger-conclusions-{name}", f"The report's conclusions under {strong}", conclusions[
            ["kind", "conclusion", "claims", "held", "unsettled", "failed", "verdict", "mark"]], [
            Column("Conclusion", lambda r: r["conclusion"], words=True),
            Column("Verdict", lambda r: r["verdict"], words=True),
            Column("Claims", lambda r: count(r["claims"])), Column("Hold", lambda r: count(r["held"])),
            Column("Not settled", lambda r: count(r["unsettled"])),
            Column("Do not hold", lambda r: count(r["failed"]))], mark="mark"),
        Table(f"stronger-claims-{name}", "Each claim: the difference A − B in points (95% CI), in the report and "
              "on the sample", claims, [
                  Column("Conclusion", lambda r: r["conclusion"], words=True),
                  Column("A", lambda r: r["above"], words=True), Column("B", lambda r: r["below"], words=True),
                  Column("Report", _difference("report")), Column(f"{pub}, sample", _difference("published")),
                  Column(f"{strong}, sample", _difference("stronger")),
                  Column("Change (paired)", lambda r: f"{points(r['change'], 1)} "
                         f"({points_interval(r['change_ci_low'], r['change_ci_high'], 1)})"),
                  Column("Deals", lambda r: count_range([r["games_above"], r["games_below"]])),
                  Column("Verdict", _verdict, words=True)], mark="mark")]
    title = f"{TITLE} ({strong})" if several else TITLE
    return Section(f"stronger-{name}", title, text, caption, None, tables, _cost(check), _glance(check, title))


def _random_note(check):
    """How a player count of every team is sampled, when the check has one."""
    if not check.claims["random_teams"].any():
        return ""
    return ("; a player count played by every team is sampled by a cell of random teams instead (a team dealt at "
            "random each game, every team equally likely, as the report weighs them), so that its sample has as "
            "many deals as games, one team each, where the first games of every team's cell would be a few deals")


def _verdict(row):
    """'holds', or with a rule reading's parts: 'does not hold (sign holds, size does not hold)'."""
    return row["verdict"] + (f" (sign {row['sign']}, size {row['size']})" if row["size"] else "")


def _cost(check):
    """What the check cost against the report, and whether its replay is the sweep's games."""
    c = check.cost
    pub, strong = check.published, check.stronger
    games, swept = c["stronger_games"] + c["published_games"], c["sweep_games"]
    text = (f"Cost: {count(c['stronger_games'])} games of {strong} and {count(c['published_games'])} of {pub} in "
            f"{duration(c['stronger_seconds'] + c['published_seconds'])}, {percent(games / swept, 1)} of the "
            f"sweep's {count(swept)} games of {pub}")
    if c["published_games"] and c["published_seconds"] > 0:
        report_seconds = swept * c["published_seconds"] / c["published_games"]
        ratio = (c["stronger_seconds"] + c["published_seconds"]) / report_seconds
        text += (f"; at {pub}'s speed measured beside it those take {duration(report_seconds)}, so the check took "
                 f"{ratio:.2g} times the report's playing time")
    n, differ = check.replay
    if not differ:
        return text + f". {pub}'s replay of the sample is the sweep's own games: the same outcome in all {count(n)}."
    return text + (f". {pub}'s replay of the sample differs from the sweep's games in {count(differ)} of {count(n)} "
                   "(the sweep was played by another version): the check pairs the replay with the stronger player.")


def _glance(check, title):
    """The verdicts in a line (naming the section, `title`), then each conclusion that does not
    hold in its own."""
    conclusions, strong = check.conclusions, check.stronger
    counts = conclusions["verdict"].value_counts()
    failed = counts.get(FAILS, 0)
    lines = [f"{TITLE} Under {strong} on a sample of the same deals, of the report's "
             f"{plural(len(conclusions), 'conclusion')}: {count(counts.get(HOLDS, 0))} hold, "
             f"{count(counts.get(UNSETTLED, 0))} not settled, {count(failed)} "
             f"{'does' if failed == 1 else 'do'} not hold (section “{title}”)."]
    claims = check.claims
    for _, row in conclusions[conclusions["verdict"] == FAILS].iterrows():
        failed = claims[(claims["conclusion"] == row["conclusion"]) & (claims["verdict"] == FAILS)]
        items = [f"{r['above']} − {r['below']} {points(r['report_difference'], 1)} points in the report, "
                 f"{points(r['stronger_difference'], 1)} "
                 f"({points_interval(r['stronger_difference_ci_low'], r['stronger_difference_ci_high'], 1)}) "
                 f"under {strong}" + (f", its size changed by {points(r['change'], 1)}" if r["size"] == FAILS else "")
                 for _, r in failed.iterrows()]
        lines.append(f"Does not hold under {strong}: {row['conclusion']} ({'; '.join(items)}).")
    return lines
