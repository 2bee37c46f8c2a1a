"""`expert`: a planning heuristic. Every candidate option is applied to a copy of `pub` and the
position it leads to is scored by a hand-written evaluation; the best score wins.

The evaluation (all from public information, R-INFO):
- treasures captured, and for each other treasure how concentrated its cards are (the player
  holding most of them is its collector; cards held elsewhere count less, and more the closer
  their holder is to the collector — same-tile gives, the Messenger gives from anywhere);
- a collector holding four cards: how many actions (by its own movement: Explorer diagonal,
  Diver through flooded and sunk cells, Pilot flight) it needs to reach a temple of that treasure;
- every flooded tile: how much its sinking would cost (the game for Fools' Landing or the last
  temple of an uncaptured treasure, a lot for a temple whose twin is flooded, a little for other
  tiles) times the chance it sinks in the coming flood phase — known from the flood discard and
  the chance of a Waters Rise! in the treasure draw, or from the cards a Waters Rise! put back on
  top of the flood pile (P_FLAYER);
- what the active player can still do this turn with the actions left (shore up a tile within
  reach, capture at a temple within reach);
- the cards in hand: Helicopter Lifts (one is needed to leave) and Sandbags, and the hand limit;
- with all four treasures (or three), every pawn's distance to Fools' Landing.

Special cards: a Sandbags is played at a window before a flood card when a tile that matters is
flooded and its card may be the next one (always for Fools' Landing or a last temple); a
Helicopter Lift carries a collector to a temple, a group to Fools' Landing in the end game, or
rescues a pawn that cannot swim. Discards and swims are scored by the same evaluation.
"""
import numpy as np

from fisim.jit.intrinsics import stack_empty
from fisim.jit.modes import compiled, inlined
from fisim.rules.actions import apply_action, apply_special, lift_destinations, swim_reach
from fisim.rules.constants import ALL_TREASURES_MASK, HELI, MESSENGER, N_HAND_KINDS, N_TREASURES, PILOT, SAND
from fisim.rules.options import (
    ACTION,
    CAPTURE,
    DROP,
    END,
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
    P_ACTIVE,
    P_CAPTURED,
    P_DECIDER,
    P_DECISION,
    P_EXISTS,
    P_FLIGHT_USED,
    P_FLOODED,
    P_PLAYERS,
    P_POS,
    P_ROLE,
    P_SIZE,
    P_TILE_AT,
    copy_into,
    hand_at,
    low_bit,
    restore,
)
from fisim.rules.view import capture_cards
from policies.common import (
    BIG,
    LOSS,
    N_CELLS,
    bitcount,
    field,
    fools_cell,
    hand_limit,
    lift_chosen,
    next_card_prob,
    offers,
    pile_layers,
    remembered_destination,
    shore_set,
    sink_risk,
    temples_mask,
    tile_importance,
)

NAME = "expert"
VERSION = 1

# --- weights of the evaluation ---
CAP = 2500.0          # a treasure captured
SET = 4               # the value tables' count of cards (a capture's, capture_cards, officially)
TOT_V = (0.0, 40.0, 120.0, 260.0, 500.0)    # by cards of an uncaptured treasure the team holds
CONC_V = (0.0, 0.0, 50.0, 150.0, 350.0)     # by the most of them in one hand
READY = 300.0         # a collector holds four cards ...
W_READY = 30.0        # ... minus this per action it needs to reach a temple ...
READY_STEPS = 8       # ... counting this many at most ...
READY_CUT = 10        # ... and this many when it cannot get there
CAP_POT = 1000.0      # the active collector can still reach a temple and capture this turn
W_MEET = 25.0         # per card held away from its collector, per step between them ...
MEET_ALL = 2.0        # ... times this when the team holds all four ...
MEET_STEPS = 6        # ... counting this many steps at most
W_COH = 5.0           # per step between two pawns (a team together trades cards faster) ...
COH_STEPS = 6         # ... counting this many at most
GROUP_GUESS = 3       # steps guessed between two pawns that both moved (a lift of a group)
WASTE = 100.0         # per card the active player's next draw will not fit in the hand
WASTE_OTHER = 0.3     # the same for the other players, who can still give cards away first
HELI_V = (0.0, 500.0, 580.0, 620.0, 640.0, 660.0, 680.0)   # by Helicopter Lifts the team holds
SAND_V = (0.0, 100.0, 160.0, 200.0, 220.0, 240.0, 260.0)   # by Sandbags the team holds
SPECIALS = 6          # (the most counted of each)
OVER = 20.0           # a player over the hand limit (a discard will follow), besides the card lost
DROP_CONC = 0.5       # share of a treasure card's concentration value lost when it is dropped
BASE_IMP = 80.0       # a tile that is neither Fools' Landing nor a temple still matters
BASE_RISK = 0.05      # a flooded tile stays at risk after this turn
STUCK_HELI = 300.0    # a pawn on a flooded tile it could not swim from, while the team holds a Lift
STUCK = 0.5 * LOSS    # the same without a Helicopter Lift (the pawn drowns: the game is lost)
SHORE_POT = 0.9       # share of a reachable tile's flood cost counted before the shore
FAR = 0.4             # share for a tile out of reach this turn ...
FAR_DECAY = 0.6       # ... shrinking with each further action needed ...
FAR_STEPS = 10        # ... up to this many
FAR_SHARE = np.array([FAR * FAR_DECAY ** k for k in range(FAR_STEPS + 1)])   # FAR * FAR_DECAY ** actions
W_FL_END = 250.0      # per action between a pawn and Fools' Landing with four treasures ...
W_FL_3 = 5.0          # ... the same with three ...
FL_STEPS = 10         # ... counting this many at most
NO_HELI_END = 1500.0  # four treasures and nobody holds a Helicopter Lift
SAND_PLAY = 80.0      # expected saving that justifies a Sandbags at a window
CAPTURE_TIE = 1.0     # a capture wins a tie
K_SHORE = 4           # flooded tiles whose shore distance is tracked for the active player

# rows of the field table
F_READY = 0           # 4 rows: per treasure, distance to its temples (for its collector's role)
F_FL = 4              # 4 rows: per seat, distance to Fools' Landing
F_PAWN = 8            # 4 rows: per seat, walking distance from its position at decision time
F_SHORE = 12          # K_SHORE rows: active player's distance to shore each tracked tile
N_ROWS = 12 + K_SHORE
TABLE_SIZE = N_ROWS * N_CELLS


@compiled
def decide(pub, options, n, mem, rng):
    kind = pub[P_DECISION]
    if kind == LIFT_DEST:
        return remembered_destination(options, n, mem)
    if kind == WINDOW:
        i = _window(pub, options, n)
        if i != 0 or bitcount(pub[P_CAPTURED]) < N_TREASURES:
            return i
    return _best(pub, options, n, kind, mem)


@inlined
def _best(pub, options, n, kind, mem):
    """The option leading to the best-scored position; a Helicopter Lift's destination is kept in
    `mem` for the LIFT_DEST decision that follows."""
    top = stack_empty(3, np.float64).reshape((1, 3))
    if ranked(pub, options, n, kind, top) == 0:
        return 0
    i = int(top[0, 0])
    d = int(top[0, 1])
    return lift_chosen(mem, i, d) if d >= 0 else i


@inlined
def ranked(pub, options, n, kind, top):
    """The best-scored options, best first: top[j] = (option index, a Helicopter Lift's destination
    or -1, score) for j < the count returned (at most top.shape[0]; ties: the earlier option first).
    A Helicopter Lift is scored destination by destination (docs/model.md)."""
    risk = stack_empty(N_CELLS, np.float64)
    imp0 = stack_empty(N_CELLS, np.float64)
    table = stack_empty(TABLE_SIZE, np.int32).reshape((N_ROWS, N_CELLS))
    have = stack_empty(N_ROWS, np.int32)
    have[:] = 0
    shk = stack_empty(K_SHORE, np.int32)
    nshk = _prepare(pub, kind, risk, imp0, table, shk)
    sp = stack_empty(P_SIZE, np.int32)
    copy_into(sp, pub[:P_SIZE])     # (the clairvoyant reference is handed a longer pub)
    return _rank(pub, options, n, kind, top, sp, table, have, risk, imp0, shk, nshk)


@compiled(counted=False)
def _rank(pub, options, n, kind, top, sp, table, have, risk, imp0, shk, nshk):
    """ranked's loop over the options, with its tables made (sp: the lookahead copy of pub)."""
    has_swim = kind == SWIM and offers(options, n, SWIM_TO)
    count = 0
    for i in range(n):
        c = options[i]
        if otype(c) == LIFT:
            dests = lift_destinations(pub, field2(c)) & _lift_targets(pub, field2(c), kind, has_swim)
            while dests:
                d = low_bit(dests)
                dests &= dests - 1
                v = _score(pub, sp, c | d, kind, table, have, risk, imp0, shk, nshk)
                count = _keep(top, count, i, d, v)
        elif _worth_scoring(c, kind):
            v = _score(pub, sp, c, kind, table, have, risk, imp0, shk, nshk)
            count = _keep(top, count, i, -1, v)
    return count


@inlined
def _keep(top, count, i, d, v):
    """Put (i, d, v) in its place in the best-first list top[:count]; the new count."""
    k = top.shape[0]
    if count == k and v <= top[k - 1, 2]:
        return count
    j = min(count, k - 1)
    while j > 0 and top[j - 1, 2] < v:
        for f in range(3):
            top[j, f] = top[j - 1, f]
        j -= 1
    top[j, 0] = i
    top[j, 1] = d
    top[j, 2] = v
    return min(count + 1, k)


@compiled
def _prepare(pub, kind, risk, imp0, table, shk):
    """The decision's tables: each cell's sink risk, each flooded cell's importance, and at an
    action the K_SHORE flooded tiles with most at stake (shk) with the active player's distance
    to shoring each (rows F_SHORE..); returns how many are tracked."""
    sink_risk(pub, risk, kind == ACTION)
    caps = pub[P_CAPTURED]
    fl = pub[P_FLOODED] & pub[P_EXISTS]
    for c in range(N_CELLS):
        imp0[c] = tile_importance(pub, c, caps, BASE_IMP) if (fl >> c) & 1 else 0.0
    if kind != ACTION:
        return 0
    role = pub[P_ROLE + pub[P_ACTIVE]]
    nshk = 0
    while nshk < K_SHORE:
        bc = -1
        bg = 0.0
        m = fl
        while m:
            c = low_bit(m)
            m &= m - 1
            g = _stake(risk, imp0, c)
            if g > bg:
                bg = g
                bc = c
        if bc < 0:
            break
        fl &= ~(1 << bc)
        shk[nshk] = bc
        field(pub, shore_set(pub, bc, role), role, table[F_SHORE + nshk])
        nshk += 1
    return nshk


@inlined
def _stake(risk, imp0, c):
    """What flooded cell c of pub puts at stake: its importance times its chance of sinking."""
    return imp0[c] * (risk[c] + BASE_RISK)


@compiled
def _lift_targets(pub, seats, kind, has_swim):
    """The destinations worth scoring for a Helicopter Lift of `seats`: at a swim any (unless the
    swimmer can swim), at a window Fools' Landing; else Fools' Landing once all treasures are in,
    and the temples of a treasure one of the pawns lifted holds four cards of."""
    if kind == SWIM:
        return 0 if has_swim else ALL_CELLS
    fl = 1 << fools_cell(pub)
    if kind == WINDOW:
        return fl
    caps = pub[P_CAPTURED]
    m = fl if caps == ALL_TREASURES_MASK else 0
    for t in range(N_TREASURES):
        if not (caps >> t) & 1:
            for s in range(pub[P_PLAYERS]):
                if (seats >> s) & 1 and pub[hand_at(s, t)] >= capture_cards(pub):
                    m |= temples_mask(pub, t)
    return m


@inlined
def _worth_scoring(c, kind):
    """Whether option c (not a lift) is worth an evaluation: not a Sandbags as an action (windows
    decide those), not drowning (never chosen while anything else is offered)."""
    t = otype(c)
    if t == SANDBAG:
        return kind != ACTION
    return not (t == PASS and kind == SWIM)


@compiled(counted=False)
def _score(pub, sp, c, kind, table, have, risk, imp0, shk, nshk):
    """The evaluation of the position option c leads to (sp: the lookahead copy)."""
    t = otype(c)
    decider = pub[P_DECIDER]
    restore(sp, pub)
    if t == END:
        sp[P_ACTIONS_LEFT] = 0
    elif t == LIFT or t == SANDBAG:
        apply_special(sp, c)
    elif t == DROP:
        sp[hand_at(decider, field1(c))] -= 1
    elif t == SWIM_TO:
        sp[P_POS + decider] = field1(c)
    elif t != PASS:
        apply_action(sp, c)
        sp[P_ACTIONS_LEFT] -= 1
    v = evaluate(pub, sp, table, have, risk, imp0, shk, nshk, pub[P_ACTIVE], kind == ACTION)
    if t == CAPTURE:
        v += CAPTURE_TIE
    return v


# --- the evaluation ---

@compiled
def _cheapest_card(sp, s, players, nheli, nsand):
    """What the team loses when seat s drops its least valuable card (roughly)."""
    caps = sp[P_CAPTURED]
    best = 1e9
    for k in range(N_HAND_KINDS):
        if sp[hand_at(s, k)] == 0:
            continue
        if k == HELI:
            v = HELI_V[min(nheli, SPECIALS)] - HELI_V[min(nheli - 1, SPECIALS)]
        elif k == SAND:
            v = SAND_V[min(nsand, SPECIALS)] - SAND_V[min(nsand - 1, SPECIALS)]
        elif (caps >> k) & 1:
            v = 0.0
        else:
            tot = 0
            for p in range(players):
                tot += sp[hand_at(p, k)]
            v = TOT_V[min(tot, SET)] - TOT_V[min(tot - 1, SET)] + DROP_CONC * CONC_V[min(sp[hand_at(s, k)], SET)]
        if v < best:
            best = v
    return best


@inlined
def evaluate(pub, sp, table, have, risk, imp0, shk, nshk, active, potentials):
    """Score of position sp (a modified copy of pub); `potentials`: count what the active player
    can still do with sp[P_ACTIONS_LEFT] actions. imp0[c]: tile_importance of flooded cell c in
    pub, valid for sp while no treasure was captured and no tile shored up. (One function: it runs
    for every option, and its parts as calls cost a third of expert's speed.)"""
    players = pub[P_PLAYERS]
    caps = sp[P_CAPTURED]
    same_tiles = caps == pub[P_CAPTURED] and sp[P_FLOODED] == pub[P_FLOODED]
    ncap = bitcount(caps)
    v = CAP * ncap
    # the hands: Helicopter Lifts and Sandbags held, cards that will not fit, the hand limit
    nheli = 0
    nsand = 0
    limit = hand_limit(pub)
    over = -1
    for s in range(players):
        nheli += sp[hand_at(s, HELI)]
        nsand += sp[hand_at(s, SAND)]
        size = 0
        for k in range(N_HAND_KINDS):
            size += sp[hand_at(s, k)]
        if size > limit:
            over = s
        room = size + 2 - limit        # cards that will not fit after this seat's next draw
        if room > 0:
            v -= WASTE * room * (1.0 if s == active else WASTE_OTHER)
    v += HELI_V[min(nheli, SPECIALS)] + SAND_V[min(nsand, SPECIALS)]
    if over >= 0:       # R-HAND: the player over the limit will drop the card worth least
        v -= OVER + _cheapest_card(sp, over, players, nheli, nsand)
    # per treasure: its cards, its collector's way to a temple, the other holders' to the collector
    a_left = sp[P_ACTIONS_LEFT]
    need = capture_cards(pub)
    for t in range(N_TREASURES):
        if (caps >> t) & 1:
            continue
        m = -1
        b = 0
        tot = 0
        for s in range(players):
            h = sp[hand_at(s, t)]
            tot += h
            if h > m:
                m = h
                b = s
        v += TOT_V[min(tot, SET)] + CONC_V[min(m, SET)]
        if m >= need:
            d = _ready_dist(pub, table, have, t, b, sp[P_POS + b])
            d = _cap_pilot(pub, sp, b, d, active)
            if d >= BIG:
                v += READY - W_READY * READY_CUT
            else:
                v += READY - W_READY * min(d, READY_STEPS)
                if potentials and b == active and d + 1 <= a_left:
                    v += CAP_POT
        if tot >= need - 1 and m < need:
            w = W_MEET * (MEET_ALL if tot >= need else 1.0)
            for s in range(players):
                h = sp[hand_at(s, t)]
                if s != b and h > 0 and pub[P_ROLE + s] != MESSENGER:
                    d = _pawn_dist(pub, sp, table, have, s, b)
                    v -= w * h * min(d, MEET_STEPS)
    if W_COH > 0.0 and ncap < N_TREASURES:      # a team that stays together can give cards at once
        for s in range(players):
            for q in range(s + 1, players):
                v -= W_COH * min(_pawn_dist(pub, sp, table, have, s, q), COH_STEPS)
    # the flooded tiles: what their sinking would cost, times its chance
    fl = sp[P_FLOODED] & sp[P_EXISTS]
    m = fl
    while m:
        c = low_bit(m)
        m &= m - 1
        imp = imp0[c] if same_tiles else tile_importance(sp, c, caps, BASE_IMP)
        for s in range(players):
            if sp[P_POS + s] == c and swim_reach(sp, s, c) == 0:
                imp += STUCK_HELI if nheli > 0 else STUCK
        v -= imp * (risk[c] + BASE_RISK)
    # what the active player can still shore up this turn, or soon
    if potentials and a_left > 0:
        best = 0.0
        pa = sp[P_POS + active]
        for k in range(nshk):
            x = shk[k]
            if (fl >> x) & 1:
                d = _cap_pilot(pub, sp, active, table[F_SHORE + k, pa], active)
                imp = imp0[x] if same_tiles else tile_importance(sp, x, caps, BASE_IMP)
                g = imp * (risk[x] + BASE_RISK)
                if d + 1 > a_left:          # not this turn: a pull toward it
                    g *= FAR_SHARE[min(d + 1 - a_left, FAR_STEPS)]
                if g > best:
                    best = g
        v += SHORE_POT * best
    # the escape: every pawn's way to Fools' Landing, a Helicopter Lift to leave
    if ncap >= N_TREASURES - 1:
        w = W_FL_END if ncap == N_TREASURES else W_FL_3
        for s in range(players):
            d = _fl_dist(pub, table, have, s, sp[P_POS + s])
            d = _cap_pilot(pub, sp, s, d, active)
            v -= w * min(d, FL_STEPS)
        if ncap == N_TREASURES:
            if nheli == 0:
                v -= NO_HELI_END
            # the escape's costs above never make the last capture look bad
            v += W_FL_END * FL_STEPS * players + NO_HELI_END
    return v


@inlined
def _ready_dist(pub, table, have, t, seat, pos):
    role = pub[P_ROLE + seat]
    row = F_READY + t
    if have[row] != role + 1:
        field(pub, temples_mask(pub, t), role, table[row])
        have[row] = role + 1
    return table[row, pos]


@inlined
def _fl_dist(pub, table, have, seat, pos):
    row = F_FL + seat
    if have[row] == 0:
        field(pub, 1 << fools_cell(pub), pub[P_ROLE + seat], table[row])
        have[row] = 1
    return table[row, pos]


@inlined
def _pawn_dist(pub, sp, table, have, s, b):
    """Walking steps between the pawns of seats s and b in position sp."""
    ps = sp[P_POS + s]
    pb = sp[P_POS + b]
    if ps == pb:
        return 0
    if pub[P_POS + b] == pb:
        row = F_PAWN + b
        other = ps
        src = pb
    else:
        row = F_PAWN + s
        other = pb
        src = ps
        if pub[P_POS + s] != ps:
            return GROUP_GUESS
    if have[row] == 0:
        field(pub, 1 << src, -1, table[row])
        have[row] = 1
    return table[row, other]


@inlined
def _cap_pilot(pub, sp, seat, d, active):
    if pub[P_ROLE + seat] == PILOT and d > 1:
        if seat != active or sp[P_FLIGHT_USED] == 0:
            return 1
    return d


# --- windows ---

@compiled
def _window(pub, options, n):
    """PASS, or a Sandbags on a tile that matters and may be drawn next."""
    first = n                   # Sandbags plays come last in the (ascending) option list
    while first > 1 and otype(options[first - 1]) == SANDBAG:
        first -= 1
    if first == n:
        return 0
    tops = stack_empty(3, np.int32)
    pile_layers(pub, tops)
    caps = pub[P_CAPTURED]
    best = 0
    bv = 0.0
    for i in range(first, n):
        c = options[i]
        x = field2(c)
        p = next_card_prob(pub, pub[P_TILE_AT + x], tops)
        if p <= 0.0:
            continue
        imp = tile_importance(pub, x, caps, BASE_IMP)
        for s in range(pub[P_PLAYERS]):
            if pub[P_POS + s] == x and swim_reach(pub, s, x) == 0:
                imp += STUCK
        val = imp * p
        if imp >= LOSS:
            val += LOSS
        if val > bv and val >= SAND_PLAY:
            bv = val
            best = i
    return best
