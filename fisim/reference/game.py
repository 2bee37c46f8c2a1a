"""The state of one game: board, pawns and hands, piles, water level, and its transcript.

Piles are lists whose last element is the top card (docs/model.md "Random streams"); hands are
counts per card kind 0..5. Randomness comes only from the game's six streams, through the
shared functions of fisim.rules.rng.
"""
import numpy as np

from fisim.position import FLOODED, SUNK
from fisim.reference import legal, turn
from fisim.reference.board import Board
from fisim.reference.effects import apply_option
from fisim.reference.legal import Decision
from fisim.rules.constants import N_HAND_KINDS, ROLE_NAMES
from fisim.rules.options import ACTION, ACTION_TYPES, LIFT_DEST, SWIM, unpack
from fisim.rules.rng import N_STREAMS, game_seed, init_streams, randbelow, shuffle


class Player:
    """One seat: its adventurer, the cell its pawn stands on, and its hand (counts per kind)."""

    __slots__ = ("seat", "role", "cell", "hand")

    def __init__(self, seat, role, cell, hand=None):
        self.seat = seat
        self.role = role
        self.cell = cell
        self.hand = list(hand) if hand is not None else [0] * N_HAND_KINDS

    def __repr__(self):
        return f"Player({self.seat}, {ROLE_NAMES[self.role]}, cell {self.cell}, hand {self.hand})"


class Game:
    """One game of Forbidden Island under a layout and a GameConfig."""

    def __init__(self, layout, config, seed=None):
        self.layout = layout
        self.config = config
        switches = config.switches
        self.nav_plain = "navigator-plain" in switches      # R-ROLE-NAVIGATOR
        self.heli_all = "heli-all" in switches              # R-SPECIAL-HELI
        self.swim000 = "swim-seed000" in switches           # R-SWIM-2
        self.swim001 = "swim-seed001" in switches           # R-SWIM-2
        self.heli_rescue = "no-heli-rescue" not in switches # R-SPECIAL-WINDOWS
        self.dive_through = ({FLOODED} if "diver-flooded-only" in switches     # R-ROLE-DIVER
                             else {SUNK} if "diver-sunk-only" in switches else {FLOODED, SUNK})
        self.sunk_card_stays = "sunk-card-stays" in switches    # R-FLOOD-1
        self.hand_after_draw = "hand-after-draw" in switches    # R-HAND
        self.board = None
        self.players = []
        self.level = config.start_level
        self.captured = set()              # treasure ids the team holds
        self.treasure_draw = []            # kinds, top last
        self.treasure_discard = []         # kinds
        self.flood_draw = []               # tile ids, top last
        self.flood_discard = []            # tile ids
        self.turn = 0                      # turns begun
        self.first_sunk = -1               # the cell that sank first (-1: none, or before a Position)
        self.last_sunk = -1                # the cell that sank last
        self.temple_close = False          # a treasure's last temple standing was flooded (turn.note_temple_close)
        self.active = 0
        self.first = None
        self.actions_left = 0
        self.flight_used = False
        self.events = []
        self.result = None
        self.decision = None               # the Decision the game is paused at, if any
        self.chooser = None
        self.streams = np.zeros(N_STREAMS, dtype=np.uint64)
        self._stream_views = [self.streams[k:k + 1] for k in range(N_STREAMS)]
        if seed is not None:
            init_streams(np.uint64(seed), self.streams)   # game_seed returns a Python int

    # --- randomness (docs/model.md "Random streams") ------------------------------------------

    def stream(self, k):
        """The one-element uint64 array of stream k (PLACEMENT, FLOOD, TREASURE, TEAM, FIRST, POLICY)."""
        return self._stream_views[k]

    def randbelow(self, k, n):
        return int(randbelow(self._stream_views[k], n))

    def shuffled(self, values, k):
        """A Fisher-Yates shuffle of `values` with stream k, as a new list."""
        a = np.array(values, dtype=np.int64)
        shuffle(a, len(a), self._stream_views[k])
        return a.tolist()

    # --- transcript ---------------------------------------------------------------------------

    def log(self, code, a=0, b=0, c=0):
        """Append an event (fisim.rules.events) to the transcript."""
        self.events.append((code, a, b, c))

    # --- decisions ----------------------------------------------------------------------------

    def legal_options(self):
        """The sorted option codes of the decision the game is paused at."""
        return legal.options(self, self.decision)

    def lift_options(self, lift):
        """The LIFT_TO options of the destination decision that follows choosing `lift` (a LIFT
        option of the current decision)."""
        d = self.decision
        return legal.options(self, legal.Decision(LIFT_DEST, unpack(lift)[1], d.sunk, lift, d.kind))

    def apply(self, code):
        """Carry out one option of the current decision on the state (not the rest of the turn).

        An action costs one action (R-TURN). Follow-ups (hand-limit discards, further swimmers,
        the next decision) are not run: use `resume` for that from an action decision.
        """
        d = self.decision
        if code not in self.legal_options():
            raise ValueError(f"option {code:#x} is not legal here")
        apply_option(self, d.seat, code)
        if d.kind == ACTION and unpack(code)[0] in ACTION_TYPES:
            self.actions_left -= 1

    def resume(self, chooser):
        """Play on to the end of the game from an ACTION decision (e.g. one built from a Position)."""
        if self.decision is None or self.decision.kind != ACTION:
            raise ValueError("a game can only be resumed from an action decision")
        self.chooser = chooser
        try:
            turn.finish_turn(self)
            turn.play_turns(self)
        except turn.GameOver:
            pass
        return self

    # --- positions (fisim/position.py) ---------------------------------------------------------

    @classmethod
    def from_position(cls, position, master_seed=0, game_index=0):
        """A game paused at the decision a Position describes.

        Config: players, team and switches from `position.config`; the water level is
        `position.level`. The random streams are those of game (master_seed, game_index).
        For a swim decision, the sunk cell is marked sunk and its flood card taken out (unless
        switch sunk-card-stays keeps it).
        """
        game = cls(position.layout, position.config, seed=game_seed(master_seed, game_index))
        status = list(position.status)
        sunk = position.sunk_cell if position.decision == SWIM else -1
        if sunk >= 0:
            status[sunk] = SUNK
        game.board = Board(position.layout, position.tile_at, status)
        game.players = [Player(s, r, c, h) for s, (r, c, h) in
                        enumerate(zip(position.roles, position.pos, position.hands))]
        game.captured = set(position.captured)
        game.level = position.level
        game.active = position.active
        game.actions_left = position.actions_left
        game.flight_used = position.flight_used
        game.turn = position.turn
        game.treasure_draw = list(position.treasure_draw)
        game.treasure_discard = [k for k, n in enumerate(position.treasure_discard) for _ in range(n)]
        gone = {position.tile_at[sunk]} if sunk >= 0 and not game.sunk_card_stays else set()
        game.flood_draw = [t for t in position.flood_draw if t not in gone]
        game.flood_discard = sorted(set(position.flood_discard) - gone)
        game.decision = Decision(position.decision, position.decider, sunk)
        game.last_sunk = sunk
        return game
