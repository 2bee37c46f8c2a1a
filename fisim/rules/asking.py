"""How the rules ask the policy for a choice: the game array keeps where the policy's compiled
entry is (X_POLICY), and a decision calls it there (fisim.jit.policy_call.call_entry), handing
decide what a policy may see (R-INFO): pub and the options, read-only, its memory and its own
random stream. pub and the options are handed read-only: a policy that wrote a code into the
options would have the engine play it, legal or not.
"""
import numpy as np

from fisim.jit.intrinsics import read_only
from fisim.jit.modes import inlined
from fisim.jit.policy_call import call_entry
from fisim.rules.rng import POLICY
from fisim.rules.state import MEM, MEM_SIZE, OPTS, SEEN_DECKS, X_POLICY

HANDED = SEEN_DECKS         # the game array's ints an entry views: through the policy's memory,
assert HANDED >= OPTS and HANDED >= MEM + MEM_SIZE      # the options and the hidden piles


@inlined
def handed(g, streams, n, seen):
    """What a policy's decide is handed at a decision of game array g: pub (g's first `seen` ints:
    P_SIZE, or SEEN_DECKS for the clairvoyant reference) and the n options, both read-only, its
    memory and its random stream."""
    return read_only(g[:seen]), read_only(g[OPTS:OPTS + n]), g[MEM:MEM + MEM_SIZE], streams[POLICY:POLICY + 1]


@inlined
def put_policy(g, address):
    """Keep the address of the policy's compiled entry in game array g."""
    g[X_POLICY] = address & 0xFFFFFFFF
    g[X_POLICY + 1] = address >> 32


@inlined
def policy_at(g, rng, n):
    """The choice among the n options of g of the policy whose entry's address g keeps."""
    address = (np.int64(g[X_POLICY]) & 0xFFFFFFFF) | (np.int64(g[X_POLICY + 1]) << 32)
    return call_entry(address, g, n, rng)
