"""`fisim design`: the rule numbers whose win rates come closest to a difficulty curve.

The designer gives rule numbers, each over a range (sweep's --set axes), and a target win rate per
level; every tuple of the ranges that the setting can play is a *candidate*, a variant of the base
rules. A candidate's *curve* is its win rate at each level: at one player count; at each of
several, every count held to the targets; or pooled over several, each deal played at every count
and its wins averaged (the win rate of a table whose player count is drawn evenly). Its *largest
miss* is the largest distance of its curve from the targets. Among the candidates within the
tolerance of every target (and within the feel constraints), the smallest change from the base
rules is the answer; when none is, the closest.

    request        what is asked, checked into a Plan; the candidates and their cells
    constraints    how a candidate's games feel: the measures a design may constrain, the columns
    race           the race over the candidates, in order of change, on common random numbers
    stores         the design's three stores (the search's two, the verification's)
    verification   the best candidates on fresh deals
    answer         the tables, design.json, best.toml
    text           the design as the terminal shows it

`run` plays a Plan: the race, then the verification, then the answer written into the folder.
"""


def run(plan, out, threads=None, progress=None, warn=None, played=None):
    """Race the plan's candidates into the stores out/screen and out/race, verify the best on fresh
    deals in out/verify, write the tables and best.toml into `out`; the Design (fisim.designing.answer).
    progress(text) as rounds start; warn(text) for a damaged chunk file, played again; played(n) as
    each block of n games finishes. Ctrl-C raises fisim.sweeping.Interrupted with the games the
    stores hold once they are open (a design run again resumes from them)."""
    from pathlib import Path

    from fisim import defaults
    from fisim.designing.answer import Design
    from fisim.designing.race import FIRST_ROUND, RACE_CHUNK, SCREEN, race, schedule
    from fisim.designing.request import VERIFY_CHUNK
    from fisim.designing.stores import SearchGames, check_folder, evidence, opened
    from fisim.designing.verification import fresh_games, verify
    from fisim.formatting import count
    from fisim.store import Store
    from fisim.sweeping import Interrupted, warm
    progress = progress or (lambda text: None)
    out = Path(out)
    check_folder(out)
    goal, held = plan.goal, []
    cells = [cell for c in plan.candidates for _, cell in c.cells]
    last = schedule(plan.budget, len(goal.cells))[-1]
    screen, race_store, verify_store = (Store(out / name) for name in ("screen", "race", "verify"))
    try:
        warm(cells[:1], plan.trace_games > 0)      # a first run compiles here, before any store is touched
        with screen.lock(), race_store.lock():
            traced = plan.trace_games if goal.traced else 0         # drama or decisiveness held to a window
            games = SearchGames(opened(screen, cells, plan.seed, min(last, SCREEN), FIRST_ROUND, threads, warn,
                                       traced, played),
                                opened(race_store, cells, plan.race_seed, max(last - SCREEN, FIRST_ROUND), RACE_CHUNK,
                                       threads, warn, progress=played))
            held.append(games)
            result = race(plan.candidates, goal, plan.budget,
                          lambda c, n: evidence(games, c, n, goal, defaults.TRACE_WORLDS), progress)
        best = [c for c in result.ranked if c in result.readings][:plan.best]
        n = fresh_games(goal, plan.verify_games)
        progress(f"verifying the best {len(best)} on {count(n)} fresh games per cell (seed {plan.verify_seed})")
        with verify_store.lock():
            fresh = opened(verify_store, [cell for c in best for _, cell in c.cells], plan.verify_seed, n,
                           VERIFY_CHUNK, threads, warn, plan.trace_games, played)
            held.append(fresh)
            verified = verify(best, goal, fresh, n, defaults.TRACE_WORLDS)
    except KeyboardInterrupt:
        if held:
            raise Interrupted(sum(h.held for h in held)) from None
        raise
    asked = result.games + len(goal.cells) * n * len(best)
    design = Design(plan, result, verified, n, games.played + fresh.played, asked)
    design.write(out)
    return design
