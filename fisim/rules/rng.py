"""Explicit, counter-based random numbers (DESIGN: "Randomness is explicit").

A game's seed is a hash of (master seed, game index); each game has one independent stream per
purpose, so that game i starts from the same shuffles whatever policy, team or rule switch is
played, and whatever thread or machine plays it. A stream is a one-element uint64 array holding a
splitmix64 counter. These functions are shared by the engine and the plain-Python reference.

The policy is handed its stream's counter, and splitmix64's mixing can be undone: from the counter
of a stream seeded mix64(seed ^ ...), a policy would recover the game's seed and with it every pile.
So the policy stream alone is seeded by a one-way step, SipHash-2-4 keyed by the game's seed
(`keyed_hash`): the counter it is handed cannot be turned back into the seed or the other streams.
One-way is not secret: a seed drawn from few candidates (a small master seed) can be found by
hashing them all (docs/policies.md says what is guaranteed).

A game's *repeat* (repeat_policy_stream) replays its deal with another policy stream: the same
tile placement, team, first player and pile orders, the same streams for every later shuffle, and
only the policy's own random choices drawn afresh. Repeat 0 is the game as it has always been
played.
"""
import numpy as np

from fisim.jit.modes import compiled

# Stream ids (the order is part of the contract: changing it changes every game).
PLACEMENT, FLOOD, TREASURE, TEAM, FIRST, POLICY = range(6)
N_STREAMS = 6

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_SIP = (np.uint64(0x736F6D6570736575), np.uint64(0x646F72616E646F6D),     # SipHash's initial state
        np.uint64(0x6C7967656E657261), np.uint64(0x7465646279746573))
_SIP_LENGTH = np.uint64(8 << 56)    # the last block of an 8-byte message: its length in the top byte
_SIP_FINAL = np.uint64(0xFF)


@compiled(counted=False)
def mix64(z):
    """The splitmix64 finalizer: a bijective scramble of a uint64."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@compiled(counted=False)
def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@compiled(counted=False)
def _sip_rounds(v0, v1, v2, v3, rounds):
    for _ in range(rounds):
        v0 += v1
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 += v3
        v3 = _rotl(v3, 16) ^ v2
        v0 += v3
        v3 = _rotl(v3, 21) ^ v0
        v2 += v1
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@compiled(counted=False)
def keyed_hash(k0, k1, m):
    """SipHash-2-4 of the 8-byte little-endian message m under the key (k0, k1) (all uint64): a
    keyed one-way function (the key cannot be recovered from its outputs)."""
    k0, k1, m = np.uint64(k0), np.uint64(k1), np.uint64(m)
    v0, v1, v2, v3 = _SIP[0] ^ k0, _SIP[1] ^ k1, _SIP[2] ^ k0, _SIP[3] ^ k1 ^ m
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
    v0 ^= m
    v3 ^= _SIP_LENGTH
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
    v0 ^= _SIP_LENGTH
    v2 ^= _SIP_FINAL
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


@compiled(counted=False)
def game_seed(master_seed, game_index):
    """The seed of game `game_index` under `master_seed` (both non-negative integers)."""
    return mix64(mix64(np.uint64(master_seed)) ^ (np.uint64(game_index) * _GOLDEN))


@compiled(counted=False)
def init_streams(seed, streams):
    """Fill `streams` (uint64[N_STREAMS]) with the independent streams of one game; the policy's
    by the one-way keyed_hash (the module's docstring says why)."""
    for k in range(streams.shape[0]):
        streams[k] = mix64(seed ^ (np.uint64(k + 1) * _M2))
    streams[POLICY] = keyed_hash(seed, _GOLDEN, POLICY)


@compiled(counted=False)
def repeat_policy_stream(streams, repeat):
    """Make `streams` (as init_streams filled them) those of repeat `repeat` of the game: the
    policy stream reseeded from the repeat index, every other stream untouched; repeat 0 changes
    nothing."""
    if repeat != 0:
        streams[POLICY] = mix64(streams[POLICY] ^ (np.uint64(repeat) * _M1))


@compiled(counted=False)
def next_u64(stream):
    """The next 64-bit value of a stream (a uint64 array view of length 1)."""
    stream[0] += _GOLDEN
    return mix64(stream[0])


@compiled(counted=False)
def randbelow(stream, n):
    """A number in 0..n-1 (bias below n / 2**64, negligible for n <= a few thousand)."""
    return np.int64(next_u64(stream) % np.uint64(n))


@compiled(counted=False)
def shuffle(values, n, stream):
    """Fisher-Yates shuffle of values[0:n] in place: for i = n-1 down to 1, swap i and randbelow(i+1)."""
    for i in range(n - 1, 0, -1):
        j = randbelow(stream, i + 1)
        t = values[i]
        values[i] = values[j]
        values[j] = t
