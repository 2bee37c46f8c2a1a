"""The game's fixed tables (R-TILES, R-TDECK, R-FDECK, R-ROLES, R-METER).

Everything here is plain data shared by the Numba engine and the plain-Python reference.
Indices are the contract: tiles, treasures, card kinds and roles are small integers in the
order below, and every array, option code and transcript event uses them.
"""
import numpy as np

# R-TILES: tile ids 0..23. Treasure t can be captured on tiles 2t and 2t+1.
TILE_NAMES = (
    "Temple of the Moon", "Temple of the Sun",
    "Whispering Garden", "Howling Garden",
    "Cave of Embers", "Cave of Shadows",
    "Coral Palace", "Tidal Palace",
    "Fools' Landing",
    "Bronze Gate", "Copper Gate", "Gold Gate", "Iron Gate", "Silver Gate",
    "Breakers Bridge", "Cliffs of Abandon", "Crimson Forest", "Dunes of Deception",
    "Lost Lagoon", "Misty Marsh", "Observatory", "Phantom Rock", "Twilight Hollow",
    "Watchtower",
)
N_TILES = 24
FOOLS_LANDING = 8

TREASURE_NAMES = ("Earth Stone", "Statue of the Wind", "Crystal of Fire", "Ocean's Chalice")
N_TREASURES = 4
ALL_TREASURES_MASK = 0b1111

# Treasure-deck card kinds (R-TDECK). Kinds 0..3 are the treasures themselves.
HELI = 4
SAND = 5
WATERS_RISE = 6
N_KINDS = 7          # kinds that exist in the treasure deck
N_HAND_KINDS = 6     # kinds that can be held (Waters Rise! never stays in a hand)
KIND_NAMES = TREASURE_NAMES + ("Helicopter Lift", "Sandbags", "Waters Rise!")
DECK_COUNTS = np.array([5, 5, 5, 5, 3, 2, 3], dtype=np.int32)   # R-TDECK: 28 cards
N_TREASURE_CARDS = 28

# R-ROLES, alphabetical; each starts on its gate (R-TILES, R-SETUP-3).
DIVER, ENGINEER, EXPLORER, MESSENGER, NAVIGATOR, PILOT = range(6)
ROLE_NAMES = ("diver", "engineer", "explorer", "messenger", "navigator", "pilot")
N_ROLES = 6
START_TILE = np.array([12, 9, 10, 13, 11, 8], dtype=np.int32)  # Iron, Bronze, Copper, Silver, Gold, Fools'

# R-METER: flood cards drawn at water levels 1..9 (index 0 unused); level 10 is the skull.
FLOOD_COUNT = np.array([0, 2, 2, 3, 3, 3, 4, 4, 5, 5], dtype=np.int32)
SKULL = 10
LEVELS = {"novice": 1, "normal": 2, "elite": 3, "legendary": 4}

MAX_PLAYERS = 4
INITIAL_FLOODS = 6   # R-SETUP-2: tiles flooded before the first turn

# R-LOSE: the four ways to lose, as bits of a conditions mask; R-LOSE-CAUSE fixes the
# primary cause's priority, which is the order of this tuple.
LOSS_NAMES = ("landing-sunk", "treasure-lost", "drowned", "skull")
LANDING_SUNK, TREASURE_LOST, DROWNED, SKULL_REACHED = 1, 2, 4, 8

# How close a game came to being lost (docs/model.md "Game record"), as bits of a result's mask:
# the meter one step below the skull at the end (R-METER, R-DRAW-WR); Fools' Landing flooded at the
# end (R-FLOOD-1, R-LOSE landing-sunk); once in the game, a treasure not captured had its last
# temple standing flooded, one flood card from treasure-lost (R-FLOOD-1, R-LOSE).
CLOSE_NAMES = ("skull", "landing", "temple")
CLOSE_SKULL, CLOSE_LANDING, CLOSE_TEMPLE = 1, 2, 4
