"""The evaluation library: a position scored by a weighted sum of what it holds, and an option
ranked by the position it leads to. `expert` plays its best-scored option with hand-set weights,
`tuned` with learned ones; the planner ranks with it at every action of a turn it plays out, and
search takes its best-scored options as candidates.

Every option is applied to a copy of `pub` (play_option) and the position it leads to is scored
(`evaluate`: all from public information, R-INFO), a part for each item:
- the cards in hand (_hands): Helicopter Lifts (one is needed to leave) and Sandbags, cards the
  next draw will not leave room for, and the hand limit;
- treasures captured, and for each other treasure (_treasures) how concentrated its cards are
  (the player holding most of them is its collector; cards held elsewhere count less, and more
  the closer their holder is to the collector — same-tile gives, the Messenger gives from
  anywhere); a collector holding four cards: how many actions (by its own movement: Explorer
  diagonal, Diver through flooded and sunk cells, Pilot flight) it needs to reach a temple of that
  treasure;
- while treasures remain, the steps between every two pawns (_together: a team together gives
  cards sooner);
- every flooded tile (_flooded_tiles): how much its sinking would cost (the game for Fools'
  Landing or the last temple of an uncaptured treasure, a lot for a temple whose twin is flooded,
  a little for other tiles) times the chance it sinks in the coming flood phase — known from the
  flood discard and the chance of a Waters Rise! in the treasure draw, or from the cards a Waters
  Rise! put back on top of the flood pile (view.flood_layer);
- what the active player can still do this turn with the actions left (shore up a tile within
  reach, _shore_potential; capture at a temple within reach, in _treasures);
- with all four treasures (or three), every pawn's distance to Fools' Landing (_escape).
The decision's tables (`Tables`: sink risks, tile importances, distance fields) are made once in
`ranked` and read for every option.

Special cards: a Sandbags is played at a window before a flood card when a tile that matters is
flooded and its card may be the next one (always for Fools' Landing or a last temple; the planner
also weighs one at its actions, on the flooded tiles with most at stake); a Helicopter Lift
carries a collector to a temple (the planner's also a group of pawns up to three cards short of a
capture the team holds), a group to Fools' Landing in the end game, or rescues a pawn
that cannot swim. Discards and swims are scored by the same evaluation.
"""
from collections import namedtuple

import numpy as np

from fisim.jit.intrinsics import stack_empty
from fisim.jit.modes import compiled, inlined
from fisim.rules import view
from fisim.rules.actions import apply_action, apply_special, dive_through, lift_destinations, swim_reach
from fisim.rules.constants import ALL_TREASURES_MASK, DIVER, HELI, MESSENGER, N_HAND_KINDS, N_TREASURES, SAND
from fisim.rules.options import (
    ACTION,
    CAPTURE,
    DROP,
    END,
    GIVE,
    LIFT,
    LIFT_DEST,
    PASS,
    SANDBAG,
    SWIM,
    SWIM_TO,
    WINDOW,
    field1,
    field2,
    otype,
)
from fisim.rules.state import (
    ALL_CELLS,
    P_ACTIONS_LEFT,
    P_POS,
    P_SIZE,
    copy_into,
    hand_at,
    low_bit,
    popcount,
    restore,
)
from policies.distances import BIG, N_CELLS, field, pilot_cap, shore_set
from policies.flood_odds import next_card_prob, pile_layers, sink_risk
from policies.importance import LOSS, tile_importance
from policies.memory import lift_chosen, remembered_destination
from policies.reading import offers
from policies.weights import WeightTable

# --- the evaluation's weights (WEIGHTS: read as w[NAME], w[NAME + k] for a vector) ---
WEIGHTS = WeightTable()
CAP = WEIGHTS.scalar("CAP", 2500.0, "a treasure captured")
TOT_V = WEIGHTS.vector("TOT_V", (0.0, 40.0, 120.0, 260.0, 500.0),
                       "by cards of an uncaptured treasure the team holds")
CONC_V = WEIGHTS.vector("CONC_V", (0.0, 0.0, 50.0, 150.0, 350.0), "by the most of them in one hand")
READY = WEIGHTS.scalar("READY", 300.0, "a collector holds four cards ...")
W_READY = WEIGHTS.scalar("W_READY", 30.0, "... minus this per action it needs to reach a temple")
CAP_POT = WEIGHTS.scalar("CAP_POT", 1000.0, "the active collector can still reach a temple and capture this turn")
W_MEET = WEIGHTS.scalar("W_MEET", 25.0, "per card held away from its collector, per step between them ...")
MEET_ALL = WEIGHTS.scalar("MEET_ALL", 2.0, "... times this when the team holds all four")
W_COH = WEIGHTS.scalar("W_COH", 5.0, "per step between two pawns (a team together trades cards faster)")
WASTE = WEIGHTS.scalar("WASTE", 100.0, "per card the active player's next draw will not fit in the hand")
WASTE_OTHER = WEIGHTS.scalar("WASTE_OTHER", 0.3,
                             "the same for the other players, who can still give cards away first (a share)")
HELI_V = WEIGHTS.vector("HELI_V", (0.0, 500.0, 580.0, 620.0, 640.0, 660.0, 680.0),
                        "by Helicopter Lifts the team holds")
SAND_V = WEIGHTS.vector("SAND_V", (0.0, 100.0, 160.0, 200.0, 220.0, 240.0, 260.0), "by Sandbags the team holds")
OVER = WEIGHTS.scalar("OVER", 20.0, "a player over the hand limit (a discard will follow), besides the card lost")
DROP_CONC = WEIGHTS.scalar("DROP_CONC", 0.5, "share of a treasure card's concentration value lost when it is dropped")
BASE_IMP = WEIGHTS.scalar("BASE_IMP", 80.0, "a tile that is neither Fools' Landing nor a temple still matters")
BASE_RISK = WEIGHTS.scalar("BASE_RISK", 0.05, "a flooded tile stays at risk after this turn")
STUCK_HELI = WEIGHTS.scalar("STUCK_HELI", 300.0,
                            "a pawn on a flooded tile it could not swim from, while the team holds a Lift")
STUCK = WEIGHTS.scalar("STUCK", 0.5 * LOSS, "the same without a Helicopter Lift (the pawn drowns: the game is lost)")
SHORE_POT = WEIGHTS.scalar("SHORE_POT", 0.9, "share of a reachable tile's flood cost counted before the shore")
FAR = WEIGHTS.scalar("FAR", 0.4, "share for a tile out of reach this turn ...")
FAR_DECAY = WEIGHTS.scalar("FAR_DECAY", 0.6, "... shrinking with each further action needed (FAR_STEPS at most)")
W_FL_END = WEIGHTS.scalar("W_FL_END", 250.0, "per action between a pawn and Fools' Landing with four treasures ...")
W_FL_3 = WEIGHTS.scalar("W_FL_3", 5.0, "... the same with three (FL_STEPS at most)")
NO_HELI_END = WEIGHTS.scalar("NO_HELI_END", 1500.0, "four treasures and nobody holds a Helicopter Lift")
SAND_PLAY = WEIGHTS.scalar("SAND_PLAY", 80.0, "expected saving that justifies a Sandbags at a window")
CAPTURE_TIE = WEIGHTS.scalar("CAPTURE_TIE", 1.0, "a capture wins a tie")
FAR_STEPS = 10
FAR_SHARE = WEIGHTS.derived(FAR_STEPS + 1, lambda v: [v["FAR"] * v["FAR_DECAY"] ** k for k in range(FAR_STEPS + 1)])
HAND_SET = WEIGHTS.constant()   # expert's own values, set by hand

# --- counts the evaluation caps (not weights) ---
SET = 4               # the value tables' count of cards (a capture's, capture_cards, officially)
READY_STEPS = 8       # a collector's actions to a temple counted at most ...
READY_CUT = 10        # ... and counted when it cannot get there
MEET_STEPS = 6        # steps between a holder and its collector counted at most
COH_STEPS = 6         # steps between two pawns counted at most
GROUP_GUESS = 3       # steps guessed between two pawns that both moved (a lift of a group)
SPECIALS = 6          # Helicopter Lifts and Sandbags counted at most, of each
FL_STEPS = 10         # actions to Fools' Landing counted at most
LIFT_SHORT = 3        # cards a group lifted to a temple may be short of a capture (the planner's lifts)
SHORE_TRACKED = 4     # flooded tiles whose shore distance is tracked for the active player

# rows of the distance fields (Tables.fields): actions from each cell, made when first read
ROW_TEMPLES = 0       # 4 rows: per treasure, to its temples (by its collector's movement)
ROW_LANDING = 4       # 4 rows: per seat, to Fools' Landing (by its own movement)
ROW_PAWN = 8          # 4 rows: per seat, walking, to its pawn as it stands at decision time
ROW_SHORE = 12        # SHORE_TRACKED rows: the active player, to shore up each tracked tile
N_ROWS = ROW_SHORE + SHORE_TRACKED
FIELDS_SIZE = N_ROWS * N_CELLS    # (stack_empty takes a constant)

# A decision's tables, made once and read for every option:
# w               the weights (WEIGHTS.constant, or an array WEIGHTS made);
# risk[c]         each cell's chance of sinking in the coming flood phase (sink_risk);
# importance[c]   each flooded cell's tile_importance in pub (0 for the others);
# stake[c]        what each flooded cell puts at stake in pub (_stake of its importance; 0 for the
#                 others), read for an option that leaves the cell's importance as it was
#                 (_tile_stake);
# fields[row, c]  the distance fields, rows ROW_*; filled[row]: what the row was made for
#                 (_field_row), 0 until it is made;
# shore_cells[k]  the n_shore flooded tiles with most at stake, tracked at an action decision
#                 (none at the others), rows ROW_SHORE + k.
Tables = namedtuple("Tables", ["w", "risk", "importance", "stake", "fields", "filled", "shore_cells", "n_shore"])


@compiled(counted=False)
def decide_with(pub, options, n, mem, w):
    """The decision of the evaluation with weights w (WEIGHTS.constant, compiled for its values, or
    an array WEIGHTS made): expert plays it with the hand-set values, tuned with learned ones."""
    kind = view.decision(pub)
    if kind == LIFT_DEST:
        return remembered_destination(options, n, mem)
    if kind == WINDOW:
        i = _window(pub, options, n, w)
        if i != 0 or popcount(view.captured_mask(pub)) < N_TREASURES:
            return i
    return _best(pub, options, n, kind, mem, w)


@inlined
def _best(pub, options, n, kind, mem, w):
    """The option leading to the best-scored position; a Helicopter Lift's destination is kept in
    `mem` for the LIFT_DEST decision that follows."""
    top = stack_empty(3, np.float64).reshape((1, 3))
    if ranked(pub, options, n, kind, top, w, False) == 0:
        return 0
    return chosen(top, 0, mem)


@inlined
def whole_code(options, top, j):
    """The whole option code of row j of a ranked list (a Helicopter Lift with its destination)."""
    c = options[int(top[j, 0])]
    return c | int(top[j, 1]) if top[j, 1] >= 0 else c


@inlined
def chosen(top, j, mem):
    """The index of the option in row j of a ranked list, a Helicopter Lift's destination kept in
    `mem` for the LIFT_DEST decision that follows (common.lift_chosen)."""
    i = int(top[j, 0])
    dest = int(top[j, 1])
    return lift_chosen(mem, i, dest) if dest >= 0 else i


@inlined
def ranked(pub, options, n, kind, top, w, planning):
    """The best-scored options, best first: top[j] = (option index, a Helicopter Lift's destination
    or -1, score) for j < the count returned (at most top.shape[0]; ties: the earlier option first).
    A Helicopter Lift is scored destination by destination (docs/model.md); w: the weights;
    planning: the planner's ranking (its lift destinations too, _lift_targets; Sandbags at an
    action, _sandbag_cells; one gift of each card, _keep_one_gift)."""
    fields = stack_empty(FIELDS_SIZE, np.int32).reshape((N_ROWS, N_CELLS))
    filled = stack_empty(N_ROWS, np.int64)
    filled[:] = 0
    return ranked_sharing(pub, options, n, kind, top, w, planning, fields, filled)


@inlined
def ranked_sharing(pub, options, n, kind, top, w, planning, fields, filled):
    """ranked, its distance fields kept in `fields` and `filled` (Tables) for the next: the
    rankings of positions of one action phase (the planner's lines) share the rows they have in
    common, as no tile sinks between them."""
    risk = stack_empty(N_CELLS, np.float64)
    importance = stack_empty(N_CELLS, np.float64)
    stake = stack_empty(N_CELLS, np.float64)
    shore_cells = stack_empty(SHORE_TRACKED, np.int32)
    n_shore = _prepare(pub, kind, risk, importance, stake, shore_cells, w)
    tables = Tables(w, risk, importance, stake, fields, filled, shore_cells, n_shore)
    after = stack_empty(P_SIZE, np.int32)
    copy_into(after, pub[:P_SIZE])     # (the clairvoyant reference is handed a longer pub)
    return _rank(pub, options, n, kind, top, after, tables, planning)


@compiled(counted=False)
def _rank(pub, options, n, kind, top, after, tables, planning):
    """ranked's loop over the options, with the decision's tables made (`after`: the lookahead
    copy of pub, which holds the position after each option in turn)."""
    has_swim = kind == SWIM and offers(options, n, SWIM_TO)
    sand_cells, sand_holder = _sandbag_cells(pub, kind, tables, planning)
    count = 0
    for i in range(n):
        c = options[i]
        t = otype(c)
        if t == LIFT:
            dests = lift_destinations(pub, field2(c)) & _lift_targets(pub, field2(c), kind, has_swim, planning)
            while dests:
                dest = low_bit(dests)
                dests &= dests - 1
                v = evaluate(pub, after, c | dest, kind, tables)
                count = _keep(top, count, i, dest, v)
        elif t == SANDBAG and kind == ACTION:
            if field1(c) == sand_holder and (sand_cells >> field2(c)) & 1:
                v = evaluate(pub, after, c, kind, tables)
                count = _keep(top, count, i, -1, v)
        elif t == GIVE and planning:
            v = evaluate(pub, after, c, kind, tables)
            count = _keep_one_gift(top, count, options, i, v)
        elif not (t == PASS and kind == SWIM):      # drowning is never chosen while anything else is offered
            v = evaluate(pub, after, c, kind, tables)
            count = _keep(top, count, i, -1, v)
    return count


@inlined
def _sandbag_cells(pub, kind, tables, planning):
    """The Sandbags worth scoring at an action decision (the planner's: tuned's wait for a window):
    on the tracked flooded tiles (Tables.shore_cells, those with most at stake), from the first
    seat holding one (any holder's card shores the same tile). Returns (cells, holder); no cells
    but for the planner's actions."""
    cells = 0
    holder = -1
    if planning and kind == ACTION:
        for k in range(tables.n_shore):
            cells |= 1 << tables.shore_cells[k]
        for s in range(view.players(pub)):
            if view.cards(pub, s, SAND) > 0:
                holder = s
                break
    return cells, holder


@inlined
def _keep_one_gift(top, count, options, i, v):
    """_keep for gift i, keeping one gift of each card in the list, the better-scored (the
    planner's: its candidates are lines to play out, and gifts of one card to two players mostly
    lead to the same line)."""
    kind = field1(options[i])
    for j in range(count):
        other = options[int(top[j, 0])]
        if otype(other) == GIVE and field1(other) == kind:
            if top[j, 2] >= v:
                return count
            for r in range(j, count - 1):        # the worse gift leaves the list
                for f in range(3):
                    top[r, f] = top[r + 1, f]
            count -= 1
            break
    return _keep(top, count, i, -1, v)


@inlined
def _keep(top, count, i, dest, v):
    """Put (i, dest, v) in its place in the best-first list top[:count]; the new count."""
    k = top.shape[0]
    if count == k and v <= top[k - 1, 2]:
        return count
    j = min(count, k - 1)
    while j > 0 and top[j - 1, 2] < v:
        for f in range(3):
            top[j, f] = top[j - 1, f]
        j -= 1
    top[j, 0] = i
    top[j, 1] = dest
    top[j, 2] = v
    return min(count + 1, k)


@compiled(counted=False)
def _prepare(pub, kind, risk, importance, stake, shore_cells, w):
    """Fill the decision's tables (Tables): risk, importance and stake, and at an action the
    tracked flooded tiles (their rows are made when first read); returns how many are tracked."""
    sink_risk(pub, risk, kind == ACTION)
    caps = view.captured_mask(pub)
    flooded = view.flooded_cells(pub) & view.existing_cells(pub)
    for c in range(N_CELLS):
        if (flooded >> c) & 1:
            importance[c] = tile_importance(pub, c, caps, w[BASE_IMP])
            stake[c] = _stake(importance[c], risk, c, w)
        else:
            importance[c] = stake[c] = 0.0
    if kind != ACTION:
        return 0
    n_shore = 0
    while n_shore < SHORE_TRACKED:
        best = -1
        most = 0.0
        m = flooded
        while m:
            c = low_bit(m)
            m &= m - 1
            if stake[c] > most:
                most = stake[c]
                best = c
        if best < 0:
            break
        flooded &= ~(1 << best)
        shore_cells[n_shore] = best
        n_shore += 1
    return n_shore


@inlined
def _stake(importance, risk, c, w):
    """What flooded cell c puts at stake: the importance given times its chance of sinking."""
    return importance * (risk[c] + w[BASE_RISK])


@compiled(counted=False)
def _lift_targets(pub, seats, kind, has_swim, planning):
    """The destinations worth scoring for a Helicopter Lift of `seats`: at a swim any (unless the
    swimmer can swim), at a window Fools' Landing; else Fools' Landing once all treasures are in,
    and the temples of a treasure one of the pawns lifted holds a capture's cards of. With
    planning (the planner's) also Fools' Landing while it is flooded (to shore it up), and the
    temples of a treasure the team holds a capture's cards of where the pawns lifted hold all but
    LIFT_SHORT of them together (a group carried to a temple hands the collector its cards there; a
    collector flown ahead of the last cards waits there)."""
    if kind == SWIM:
        return 0 if has_swim else ALL_CELLS
    fl = 1 << view.fools_landing(pub)
    if kind == WINDOW:
        return fl
    caps = view.captured_mask(pub)
    m = fl if caps == ALL_TREASURES_MASK or (planning and view.flooded_cells(pub) & fl) else 0
    need = view.capture_cards(pub)
    for t in range(N_TREASURES):
        if not (caps >> t) & 1:
            most = lifted = team = 0
            for s in range(view.players(pub)):
                held = view.cards(pub, s, t)
                team += held
                if (seats >> s) & 1:
                    lifted += held
                    most = max(most, held)
            if most >= need or (planning and team >= need and lifted >= need - LIFT_SHORT):
                m |= view.temple_cells(pub, t)
    return m


# --- the evaluation ---

@compiled(counted=False)
def evaluate(pub, after, c, kind, tables):
    """The score of the position option c leads to, made in `after` (the lookahead copy of pub).
    Its parts add their terms to the score in turn; they are inlined, as calls in the loop over the
    options are slower (docs/benchmarks.md)."""
    play_option(after, pub, c)
    w = tables.w
    active = view.active(pub)
    potentials = kind == ACTION     # count what the active player can still do with the actions left
    caps = view.captured_mask(after)
    ncap = popcount(caps)
    v = w[CAP] * ncap
    v, nheli = _hands(pub, after, active, v, w)
    v = _treasures(pub, after, tables, active, potentials, caps, v)
    if w[W_COH] > 0.0 and ncap < N_TREASURES:      # a team that stays together can give cards at once
        v = _together(pub, after, tables, v)
    flooded = view.flooded_cells(after) & view.existing_cells(after)
    stale = _stale_importance(pub, after, caps)
    v = _flooded_tiles(after, tables, caps, flooded, stale, nheli, v)
    if potentials and view.actions_left(after) > 0:
        v += w[SHORE_POT] * _shore_potential(pub, after, tables, active, caps, flooded, stale)
    if ncap >= N_TREASURES - 1:
        v = _escape(pub, after, tables, ncap, nheli, v)
    if otype(c) == CAPTURE:
        v += w[CAPTURE_TIE]
    return v


@inlined
def play_option(after, pub, c):
    """Make `after` the position option c leads to from pub. The rules' functions give an action's
    or a special card's effect (fisim.rules.actions); what the engine does itself is written here:
    an action spent, the actions END gives up, a card dropped, a swim."""
    t = otype(c)
    decider = view.decider(pub)
    restore(after, pub)
    if t == END:
        after[P_ACTIONS_LEFT] = 0
    elif t == LIFT or t == SANDBAG:
        apply_special(after, c)
    elif t == DROP:
        after[hand_at(decider, field1(c))] -= 1
    elif t == SWIM_TO:
        after[P_POS + decider] = field1(c)
    elif t != PASS:
        apply_action(after, c)
        after[P_ACTIONS_LEFT] -= 1


@inlined
def _hands(pub, after, active, v, w):
    """v with the hands' terms (cards that will not fit after a seat's next draw, the Helicopter
    Lifts and Sandbags held, a hand over the limit), and how many Helicopter Lifts the team holds."""
    nheli = 0
    nsand = 0
    limit = view.hand_limit(pub)
    over = -1
    for s in range(view.players(pub)):
        nheli += view.cards(after, s, HELI)
        nsand += view.cards(after, s, SAND)
        size = view.cards_in_hand(after, s)
        if size > limit:
            over = s
        room = size + 2 - limit        # cards that will not fit after this seat's next draw
        if room > 0:
            v -= w[WASTE] * room * (1.0 if s == active else w[WASTE_OTHER])
    v += w[HELI_V + min(nheli, SPECIALS)] + w[SAND_V + min(nsand, SPECIALS)]
    if over >= 0:       # R-HAND: the player over the limit will drop the card worth least
        v -= w[OVER] + _cheapest_card(after, over, nheli, nsand, w)
    return v, nheli


@compiled(counted=False)
def _cheapest_card(after, s, nheli, nsand, w):
    """What the team loses when seat s drops its least valuable card (roughly)."""
    caps = view.captured_mask(after)
    best = 1e9
    for k in range(N_HAND_KINDS):
        held = view.cards(after, s, k)
        if held == 0:
            continue
        if k == HELI:
            v = w[HELI_V + min(nheli, SPECIALS)] - w[HELI_V + min(nheli - 1, SPECIALS)]
        elif k == SAND:
            v = w[SAND_V + min(nsand, SPECIALS)] - w[SAND_V + min(nsand - 1, SPECIALS)]
        elif (caps >> k) & 1:
            v = 0.0
        else:
            team = 0
            for p in range(view.players(after)):
                team += view.cards(after, p, k)
            v = w[TOT_V + min(team, SET)] - w[TOT_V + min(team - 1, SET)] + w[DROP_CONC] * w[CONC_V + min(held, SET)]
        if v < best:
            best = v
    return best


@inlined
def _treasures(pub, after, tables, active, potentials, caps, v):
    """v with each uncaptured treasure's terms: its cards in the team and in its collector's hand
    (the seat holding most), the collector's way to a temple when it holds enough to capture, the
    other holders' way to the collector when the team nearly does."""
    w = tables.w
    need = view.capture_cards(pub)
    players = view.players(pub)
    for t in range(N_TREASURES):
        if (caps >> t) & 1:
            continue
        most = -1
        collector = 0
        team = 0
        for s in range(players):
            held = view.cards(after, s, t)
            team += held
            if held > most:
                most = held
                collector = s
        v += w[TOT_V + min(team, SET)] + w[CONC_V + min(most, SET)]
        if most >= need:
            steps = _temple_steps(pub, tables, t, collector, view.position(after, collector))
            steps = pilot_cap(after, collector, steps)
            if steps >= BIG:
                v += w[READY] - w[W_READY] * READY_CUT
            else:
                v += w[READY] - w[W_READY] * min(steps, READY_STEPS)
                if potentials and collector == active and steps + 1 <= view.actions_left(after):
                    v += w[CAP_POT]
        if team >= need - 1 and most < need:
            meet = w[W_MEET] * (w[MEET_ALL] if team >= need else 1.0)
            for s in range(players):
                held = view.cards(after, s, t)
                if s != collector and held > 0 and view.role(pub, s) != MESSENGER:
                    v -= meet * held * min(_pawn_steps(pub, after, tables, s, collector), MEET_STEPS)
    return v


@inlined
def _together(pub, after, tables, v):
    """v with the steps between every two pawns."""
    w = tables.w
    players = view.players(pub)
    for s in range(players):
        for q in range(s + 1, players):
            v -= w[W_COH] * min(_pawn_steps(pub, after, tables, s, q), COH_STEPS)
    return v


@inlined
def _flooded_tiles(after, tables, caps, flooded, stale, nheli, v):
    """v with what each flooded tile's sinking would cost (a pawn stranded on it too), times its
    chance."""
    w = tables.w
    occupied = 0
    for s in range(view.players(after)):
        occupied |= 1 << view.position(after, s)
    m = flooded
    while m:
        c = low_bit(m)
        m &= m - 1
        if not ((stale | occupied) >> c) & 1:       # (_tile_stake, its test folded into this one)
            v -= tables.stake[c]
            continue
        imp = _importance(after, tables, c, caps, stale)
        for s in range(view.players(after)):
            if view.position(after, s) == c and swim_reach(after, s, c) == 0:
                imp += w[STUCK_HELI] if nheli > 0 else w[STUCK]
        v -= _stake(imp, tables.risk, c, w)
    return v


@inlined
def _shore_potential(pub, after, tables, active, caps, flooded, stale):
    """The most at stake on a tracked flooded tile the active player can still shore up this turn,
    or (a share, for a pull toward it) in a later one."""
    w = tables.w
    a_left = view.actions_left(after)
    here = view.position(after, active)
    best = 0.0
    for k in range(tables.n_shore):
        cell = tables.shore_cells[k]
        if (flooded >> cell) & 1:
            steps = pilot_cap(after, active, _shore_steps(pub, tables, k, here))
            stake = _tile_stake(after, tables, cell, caps, stale)
            if steps + 1 > a_left:          # not this turn: a pull toward it
                stake *= w[FAR_SHARE + min(steps + 1 - a_left, FAR_STEPS)]
            if stake > best:
                best = stake
    return best


@inlined
def _escape(pub, after, tables, ncap, nheli, v):
    """v with every pawn's way to Fools' Landing and, with all four treasures, a Helicopter Lift
    to leave."""
    w = tables.w
    per_action = w[W_FL_END] if ncap == N_TREASURES else w[W_FL_3]
    players = view.players(pub)
    for s in range(players):
        steps = _landing_steps(pub, tables, s, view.position(after, s))
        v -= per_action * min(pilot_cap(after, s, steps), FL_STEPS)
    if ncap == N_TREASURES:
        if nheli == 0:
            v -= w[NO_HELI_END]
        # the escape's costs above never make the last capture look bad
        v += w[W_FL_END] * FL_STEPS * players + w[NO_HELI_END]
    return v


@inlined
def _shore_steps(pub, tables, k, cell):
    """Actions from `cell` to shoring up tracked tile k, by the active player's movement in pub
    (a row read only while actions are left after the option: made when first read)."""
    role = view.role(pub, view.active(pub))
    target = tables.shore_cells[k]
    return _field_row(pub, tables, ROW_SHORE + k, target, shore_set(pub, target, role), role)[cell]


@inlined
def _tile_stake(after, tables, c, caps, stale):
    """What flooded cell c puts at stake in `after`, no pawn stranded on it: the decision's table
    (the same double as scoring it anew) unless c is in `stale`."""
    if (stale >> c) & 1:
        return _stake(_importance(after, tables, c, caps, stale), tables.risk, c, tables.w)
    return tables.stake[c]


@inlined
def _importance(after, tables, c, caps, stale):
    """tile_importance of flooded cell c in `after`: the decision's table unless c is in `stale`."""
    w = tables.w
    return tile_importance(after, c, caps, w[BASE_IMP]) if (stale >> c) & 1 else tables.importance[c]


@inlined
def _stale_importance(pub, after, caps):
    """The cells whose tile_importance may differ in `after` from the decision's table: all after
    a capture, else the temples whose twin was shored up (what tile_importance reads that an
    action or a special card changes: the captures, a twin temple's flooding)."""
    if caps != view.captured_mask(pub):
        return ALL_CELLS
    stale = 0
    m = view.flooded_cells(after) ^ view.flooded_cells(pub)
    while m:
        c = low_bit(m)
        m &= m - 1
        t = view.tile_at(pub, c)
        if t < 2 * N_TREASURES:
            stale |= 1 << view.cell_of(pub, t ^ 1)
    return stale


@inlined
def _temple_steps(pub, tables, t, seat, cell):
    """Actions from `cell` to a temple of treasure t, by the movement of seat's role."""
    role = view.role(pub, seat)
    return _field_row(pub, tables, ROW_TEMPLES + t, role, view.temple_cells(pub, t), role)[cell]


@inlined
def _landing_steps(pub, tables, seat, cell):
    """Actions from `cell` to Fools' Landing, by the movement of seat's role."""
    role = view.role(pub, seat)
    return _field_row(pub, tables, ROW_LANDING + seat, role, 1 << view.fools_landing(pub), role)[cell]


@inlined
def _pawn_steps(pub, after, tables, s, q):
    """Walking steps between the pawns of seats s and q in position `after`, read in the row of
    one that stands where it stood in pub; GROUP_GUESS when both have moved."""
    at_s = view.position(after, s)
    at_q = view.position(after, q)
    if at_s == at_q:
        return 0
    if view.position(pub, q) == at_q:
        row = ROW_PAWN + q
        from_cell = at_q
        to_cell = at_s
    else:
        row = ROW_PAWN + s
        from_cell = at_s
        to_cell = at_q
        if view.position(pub, s) != at_s:
            return GROUP_GUESS
    return _field_row(pub, tables, row, from_cell, 1 << from_cell, -1)[to_cell]


@inlined
def _field_row(pub, tables, row, source, targets, role):
    """Row `row` of the distance fields: the actions from each cell to `targets` by the movement
    of `role` (-1: walking), made unless it was made for the same `source` (the role or the cell
    its targets come from; the Diver's: and the cells she dives through)."""
    mark = np.int64(source + 1)
    if role == DIVER:
        mark |= dive_through(pub) << 8
    if tables.filled[row] != mark:
        field(pub, targets, role, tables.fields[row])
        tables.filled[row] = mark
    return tables.fields[row]


# --- windows ---

@compiled(counted=False)
def _window(pub, options, n, w):
    """PASS, or a Sandbags on a tile that matters and may be drawn next."""
    first = n                   # Sandbags plays come last in the (ascending) option list
    while first > 1 and otype(options[first - 1]) == SANDBAG:
        first -= 1
    if first == n:
        return 0
    tops = stack_empty(3, np.int32)
    pile_layers(pub, tops)
    caps = view.captured_mask(pub)
    best = 0
    best_saving = 0.0
    for i in range(first, n):
        cell = field2(options[i])
        p = next_card_prob(pub, view.tile_at(pub, cell), tops)
        if p <= 0.0:
            continue
        imp = tile_importance(pub, cell, caps, w[BASE_IMP])
        for s in range(view.players(pub)):
            if view.position(pub, s) == cell and swim_reach(pub, s, cell) == 0:
                imp += w[STUCK]
        saving = imp * p
        if imp >= LOSS:
            saving += LOSS
        if saving > best_saving and saving >= w[SAND_PLAY]:
            best_saving = saving
            best = i
    return best
