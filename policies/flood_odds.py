"""What the flood pile will bring next, from what the team knows (R-INFO): the flood discard, the
cards a Waters Rise! put back on top in known groups (view.flood_layer, R-DRAW-WR), and the chance
of a Waters Rise! in the treasure draw. The heuristic policies weigh a flooded tile by these odds.
"""
import numpy as np

from fisim.jit.intrinsics import stack_empty
from fisim.jit.modes import compiled, inlined
from fisim.rules import view
from fisim.rules.constants import WATERS_RISE
from fisim.rules.state import popcount
from fisim.rules.view import N_CELLS

MAX_LAYERS = 32      # flood-pile layers (Waters Rise! groups) told apart; any above share the top one


@inlined
def flood_count(pub, level):
    """Flood cards drawn at a water level; at the skull and above, those of the position below it."""
    top = view.skull(pub) - 1
    if level > top:
        level = top
    return view.flood_draws_at(pub, level)


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
