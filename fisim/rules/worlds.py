"""Determinization (R-INFO): a whole game array consistent with what the team knows, for a
search's rollouts. Everything public is copied from pub; what is hidden is the order of the two
draw piles, so each is dealt at random from its known contents: the treasure pile from its counts
per kind, the flood pile from the cards neither discarded nor removed (view.flood_draw_mask),
each group a Waters Rise! put back on top (R-DRAW-WR) staying a group above the older cards.
Every random stream of the world is new, so no rollout can learn the game's own future draws.

rollout_world is what a search plays: a sampled world, or, for the clairvoyant reference the engine
hands the hidden piles (its entry in fisim.engine.runners, policies.sees_decks), the piles as they lie.
"""
from fisim.jit.modes import compiled
from fisim.rules.constants import N_KINDS, N_TILES
from fisim.rules.rng import PLACEMENT, init_streams, shuffle
from fisim.rules.state import (
    H_FPILE,
    H_TPILE,
    LOG,
    MEM,
    MEM_SIZE,
    P_FLAYER,
    P_LAYER_TOP,
    P_SIZE,
    P_TDRAW_COUNT,
    SEEN_DECKS,
    X_DECLOG,
    X_LOG_CAP,
    copy_into,
)
from fisim.rules.view import flood_draw_mask

WORLD_SIZE = LOG + 1    # a game array without room for a transcript


@compiled(counted=False)
def sample_world(pub, mem, g, streams, seed):
    """Fill game array g (WORLD_SIZE ints) with pub, the policy memory `mem` and draw piles dealt
    at random, and `streams` with the world's own random streams from `seed`. The placement
    stream, unused after setup, deals the piles."""
    copy_into(g[:P_SIZE], pub)
    copy_into(g[MEM:MEM + MEM_SIZE], mem)
    g[X_LOG_CAP] = 0
    g[X_DECLOG] = 0
    g[LOG] = 0
    init_streams(seed, streams)
    deal = streams[PLACEMENT:PLACEMENT + 1]
    n = 0
    for k in range(N_KINDS):
        for _ in range(pub[P_TDRAW_COUNT + k]):
            g[H_TPILE + n] = k
            n += 1
    shuffle(g[H_TPILE:H_TPILE + n], n, deal)
    cards = flood_draw_mask(pub)
    n = 0
    for layer in range(pub[P_LAYER_TOP] + 1):      # the pile's bottom first
        first = n
        for t in range(N_TILES):
            if (cards >> t) & 1 and pub[P_FLAYER + t] == layer:
                g[H_FPILE + n] = t
                n += 1
        shuffle(g[H_FPILE + first:H_FPILE + n], n - first, deal)


@compiled(counted=False)
def rollout_world(pub, mem, g, streams, seed):
    """sample_world, except that a `pub` running through the hidden piles (the engine hands that
    to the clairvoyant reference only) puts the piles in their true order. The world's streams
    are new either way: a later shuffle is as unknown to the clairvoyant as to anyone."""
    sample_world(pub[:P_SIZE], mem, g, streams, seed)
    if pub.shape[0] >= SEEN_DECKS:
        copy_into(g[H_TPILE:SEEN_DECKS], pub[H_TPILE:SEEN_DECKS])
