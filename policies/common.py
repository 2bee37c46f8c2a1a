"""Helpers shared by the heuristic policies (`greedy`, `expert`): distances on the current island
per adventurer, what the flood pile will bring next, and how much each tile matters.

Everything here reads only the public record `pub`, through fisim.rules.view (R-INFO): the island,
the hands, the piles' sizes and contents as counts, and which flood cards a Waters Rise! put back
on top (view.flood_layer).
"""
import numpy as np

from fisim.jit.intrinsics import stack_empty
from fisim.jit.modes import compiled, inlined
from fisim.rules import view
from fisim.rules.actions import dive_through
from fisim.rules.actions import spread as spread_orth
from fisim.rules.constants import DIVER, EXPLORER, FOOLS_LANDING, N_TREASURES, PILOT, WATERS_RISE
from fisim.rules.options import field1, otype
from fisim.rules.state import MEM_SIZE, diag, low_bit, orth, popcount
from fisim.rules.view import N_CELLS

BIG = 99              # "unreachable" in a distance field
LIFT_MEMO = MEM_SIZE - 1   # the policy-memory slot where a lift's chosen destination waits for
                           # its LIFT_DEST decision (lift_chosen / remembered_destination)
MAX_LAYERS = 32      # flood-pile layers (Waters Rise! groups) told apart; any above share the top one
# --- weights of tile_importance (shared by greedy and expert) ---
LOSS = 10000.0        # a tile whose sinking loses the game
TEMPLE_TWIN_FLOODED = 1500.0    # a temple still needed whose twin is flooded ...
TEMPLE_TWIN_DRY = 450.0         # ... or dry
FL_ACCESS = 240.0     # a tile next to Fools' Landing, shared among its neighbours
TEMPLE_ACCESS = 90.0  # a tile next to a temple still needed, shared among its neighbours


@inlined
def spread_all(pub, cells):
    """Orthogonal and diagonal neighbours of `cells` (the Explorer's step)."""
    out = 0
    while cells:
        c = low_bit(cells)
        out |= orth(pub, c) | diag(pub, c)
        cells &= cells - 1
    return out


@compiled(counted=False)
def field(pub, targets, role, out):
    """out[c] = the fewest actions a pawn of `role` on cell c needs to stand on one of `targets`
    (R-ACT-MOVE; Explorer diagonal, Diver through flooded/sunk cells as the switches allow; the
    Pilot walks here: pilot_cap gives his flight). BIG if it cannot get there."""
    exists = view.existing_cells(pub)
    for c in range(N_CELLS):
        out[c] = BIG
    frontier = targets & exists
    seen = frontier
    through = dive_through(pub)
    d = 0
    while frontier:
        m = frontier
        while m:
            out[low_bit(m)] = d
            m &= m - 1
        if role == EXPLORER:
            nxt = spread_all(pub, frontier)
        else:
            nxt = spread_orth(pub, frontier)
            if role == DIVER:          # R-ROLE-DIVER: one action through flooded and/or sunk cells
                t = nxt & through
                reach = t
                while t:
                    t = spread_orth(pub, t) & through & ~reach
                    reach |= t
                nxt |= spread_orth(pub, reach)
        nxt &= exists & ~seen
        seen |= nxt
        frontier = nxt
        d += 1


@inlined
def shore_set(pub, cell, role):
    """The cells from which `role` can shore up `cell` (R-ACT-SHORE; Explorer diagonal too)."""
    m = orth(pub, cell) | (1 << cell)
    if role == EXPLORER:
        m |= diag(pub, cell)
    return m & view.existing_cells(pub)


@inlined
def flood_count(pub, level):
    """Flood cards drawn at a water level; at the skull and above, those of the position below it."""
    top = view.skull(pub) - 1
    if level > top:
        level = top
    return view.flood_draws_at(pub, level)


@compiled(counted=False)
def team_count(pub, kind):
    n = 0
    for s in range(view.players(pub)):
        n += view.cards(pub, s, kind)
    return n


@compiled(counted=False)
def p_waters_rise(pub):
    """Probability that the next two treasure cards include a Waters Rise! (from the counts)."""
    n = view.treasure_pile_size(pub)
    w = view.treasure_pile_count(pub, WATERS_RISE)
    if n <= 0:
        return 0.0
    if n == 1:
        return w / 1.0
    safe = (n - w) * (n - w - 1) / (n * (n - 1.0))
    return 1.0 - safe


@compiled(counted=False)
def pile_layers(pub, tops):
    """For the cards in the flood draw pile (sunk tiles' too under switch sunk-card-stays),
    tops[0] = the highest layer present (0: none), tops[1] = cards in that layer, tops[2] = cards
    in layers (all known-on-top cards)."""
    pile = view.flood_draw_mask(pub)
    top = 0
    ntop = 0
    layered = 0
    for t in range(N_CELLS):
        ly = view.flood_layer(pub, t)
        if ly > 0 and (pile >> t) & 1:
            layered += 1
            if ly > top:
                top = ly
                ntop = 1
            elif ly == top:
                ntop += 1
    tops[0] = top
    tops[1] = ntop
    tops[2] = layered


@compiled(counted=False)
def next_card_prob(pub, tile, tops):
    """Probability that the next flood card drawn is `tile`'s (0 if it is in the discard)."""
    if view.in_flood_discard(pub, tile):
        return 0.0
    if tops[0] > 0:
        if view.flood_layer(pub, tile) == tops[0]:
            return 1.0 / tops[1]
        return 0.0
    n = view.flood_pile_size(pub)
    if n <= 0:
        return 0.0
    return 1.0 / n


@compiled(counted=False)
def sink_risk(pub, risk, with_draw):
    """risk[c] for each flooded cell c: the probability that its flood card is drawn in the coming
    flood phase (so that it sinks), after the treasure draw if `with_draw` (a Waters Rise! puts
    the flood discard, shuffled, on top of the pile: R-DRAW-WR). The pile and the discard may
    hold sunk tiles' cards (switch sunk-card-stays): they take draws like any other card."""
    flooded = view.flooded_cells(pub) & view.existing_cells(pub)
    disc = view.flood_discard_mask(pub)
    pile = view.flood_draw_mask(pub)
    level = view.water_level(pub)
    f0 = flood_count(pub, level)
    f1 = flood_count(pub, level + 1)
    pwr = p_waters_rise(pub) if with_draw else 0.0
    d = popcount(disc)
    # how many known cards lie above each layer
    above = stack_empty(MAX_LAYERS, np.int32)
    size = stack_empty(MAX_LAYERS, np.int32)
    above[:] = 0
    size[:] = 0
    layered = 0
    maxly = 0
    for t in range(N_CELLS):
        ly = view.flood_layer(pub, t)
        if ly > 0 and (pile >> t) & 1:
            if ly >= MAX_LAYERS:
                ly = MAX_LAYERS - 1
            size[ly] += 1
            layered += 1
            if ly > maxly:
                maxly = ly
    acc = 0
    for ly in range(maxly, 0, -1):
        above[ly] = acc
        acc += size[ly]
    size[0] = view.flood_pile_size(pub) - layered
    above[0] = layered
    for c in range(N_CELLS):
        risk[c] = 0.0
        if not (flooded >> c) & 1:
            continue
        t = view.tile_at(pub, c)
        if (disc >> t) & 1:
            # without a Waters Rise! the discard comes back only if the draw pile runs out
            # during the phase (R-FLOOD-EMPTY); with one it goes on top (R-DRAW-WR)
            p0 = min(1.0, max(0.0, (f0 - view.flood_pile_size(pub)) / max(d, 1)))
            risk[c] = (1.0 - pwr) * p0 + pwr * min(1.0, f1 / max(d, 1))
        else:
            ly = view.flood_layer(pub, t)
            if ly >= MAX_LAYERS:
                ly = MAX_LAYERS - 1
            a = above[ly]
            sz = max(size[ly], 1)
            p0 = min(1.0, max(0.0, (f0 - a) / sz))
            p1 = min(1.0, max(0.0, (f1 - d - a) / sz))
            risk[c] = (1.0 - pwr) * p0 + pwr * p1


@compiled(counted=False)
def tile_importance(pub, cell, captured, base):
    """How much the team loses if the tile on `cell` sinks: the game for Fools' Landing or the
    last temple of an uncaptured treasure (R-LOSE), a lot for a temple whose twin is flooded, less
    for one whose twin is dry, `base` for any other tile."""
    t = view.tile_at(pub, cell)
    if t == FOOLS_LANDING:
        return LOSS
    if t < 2 * N_TREASURES and not (captured >> (t >> 1)) & 1:
        twin = view.cell_of(pub, t ^ 1)
        status = view.tile_status(pub, twin)
        if status == view.SUNK:
            return LOSS
        if status == view.FLOODED:
            return TEMPLE_TWIN_FLOODED
        return TEMPLE_TWIN_DRY
    # the tiles that give access to Fools' Landing and to the temples still needed
    v = base
    nb = orth(pub, cell)
    fl = view.fools_landing(pub)
    ex = view.existing_cells(pub)
    if (nb >> fl) & 1:
        v += FL_ACCESS / max(1, popcount(orth(pub, fl) & ex))
    for tt in range(N_TREASURES):
        if not (captured >> tt) & 1:
            for j in range(2):
                tc = view.cell_of(pub, 2 * tt + j)
                if (nb >> tc) & 1 and (ex >> tc) & 1:
                    v += TEMPLE_ACCESS / max(1, popcount(orth(pub, tc) & ex))
    return v


@compiled(counted=False)
def best_flooded(pub, captured):
    """The flooded cell that matters most (importance), or -1."""
    flooded = view.flooded_cells(pub) & view.existing_cells(pub)
    best = -1
    bv = -1.0
    for c in range(N_CELLS):
        if (flooded >> c) & 1:
            v = tile_importance(pub, c, captured, 50.0)
            if v > bv:
                bv = v
                best = c
    return best


@compiled(counted=False)
def collector(pub, t):
    """The seat holding the most cards of treasure t (the lowest seat on ties)."""
    best = 0
    bn = -1
    for s in range(view.players(pub)):
        k = view.cards(pub, s, t)
        if k > bn:
            bn = k
            best = s
    return best


@compiled(counted=False)
def offers(options, n, kind):
    """Whether any of the n options is of type `kind` (fisim.rules.options)."""
    for i in range(n):
        if otype(options[i]) == kind:
            return True
    return False


@inlined
def pilot_cap(pos, seat, d):
    """d, the actions `seat` needs to get somewhere in position `pos`; 1 for a Pilot whose flight
    is unused this turn (R-ROLE-PILOT; only the active player can have used it)."""
    if view.role(pos, seat) == PILOT and d > 1 and not (seat == view.active(pos) and view.flight_used(pos)):
        return 1
    return d


# --- Helicopter Lifts, chosen in two steps (docs/model.md) ---

@inlined
def lift_chosen(mem, i, dest):
    """i, the index of the LIFT option chosen, whose destination `dest` is kept in `mem` for the
    LIFT_DEST decision that follows (remembered_destination)."""
    mem[LIFT_MEMO] = dest
    return i


@compiled(counted=False)
def remembered_destination(options, n, mem):
    """At a LIFT_DEST decision: the index of the destination `lift_chosen` kept."""
    for i in range(n):
        if field1(options[i]) == mem[LIFT_MEMO]:
            return i
    return -1
