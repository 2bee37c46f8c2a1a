"""Game transcripts: the events of one game (fisim.rules.events) as text a player can follow.

The same text is what `fisim replay` prints and what the golden tests diff, so a change in the
rules engine shows up in review as a change in a readable game.
"""
from fisim.position import TILE_CODES
from fisim.rules import events as ev
from fisim.rules import options as op
from fisim.rules.constants import KIND_NAMES, LOSS_NAMES, ROLE_NAMES, TILE_NAMES


def _cards(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


class _Reader:
    """Names for cells and seats, learned from the setup events."""

    def __init__(self):
        self.tile_at = {}
        self.roles = {}

    def cell(self, c):
        return TILE_NAMES[self.tile_at[c]]

    def seat(self, s):
        return f"{ROLE_NAMES[self.roles[s]]} (seat {s})"

    def seats(self, mask):
        return " and ".join(self.seat(s) for s in range(4) if mask >> s & 1)

    def option(self, kind, seat, c):
        t, f1, f2, f3 = op.decode(c)
        who = self.seat(seat)
        return {
            "end": lambda: f"{who} ends the action phase",
            "move": lambda: f"{who} moves to {self.cell(f1)}",
            "fly": lambda: f"{who} flies to {self.cell(f1)}",
            "dive": lambda: f"{who} dives to {self.cell(f1)}",
            "nav": lambda: f"{who} moves {self.seat(f1)} to {self.cell(f2)}",
            "shore": lambda: f"{who} shores up {self.cell(f1)}",
            "shore2": lambda: f"{who} shores up {self.cell(f1)} and {self.cell(f2)}",
            "give": lambda: f"{who} gives {KIND_NAMES[f1]} to {self.seat(f2)}",
            "capture": lambda: f"{who} captures the {KIND_NAMES[f1]}",
            "heli": lambda: f"{who} plays Helicopter Lift: {self.seats(f2)} to {self.cell(f3)}",
            "sand": lambda: f"{who} plays Sandbags on {self.cell(f2)}",
            "discard": lambda: f"{who} discards {KIND_NAMES[f1]} (hand limit)",
            "swim": lambda: f"{who} swims to {self.cell(f1)}",
        }[t]()


def tile_legend(per_line=4):
    """Lines naming every two-letter tile code of the island map (treasure tiles first)."""
    entries = [f"{code} {name}" for code, name in zip(TILE_CODES, TILE_NAMES)]
    width = max(len(e) for e in entries) + 2
    return ["".join(e.ljust(width) for e in entries[i:i + per_line]).rstrip()
            for i in range(0, len(entries), per_line)]


def format_transcript(events, layout, title="", legend=False):
    """The transcript of one game from its events (rows of code, a, b, c); with `legend`, the
    island map is followed by what its tile codes stand for."""
    r = _Reader()
    lines = [title] if title else []
    deal = {}
    for code, a, b, c in (tuple(int(x) for x in row) for row in events):
        if code == ev.EV_PLACE:
            r.tile_at[a] = b
            if len(r.tile_at) == len(layout.cells):
                labels = [TILE_CODES[r.tile_at[i]] for i in range(len(layout.cells))]
                lines += ["Island (tile codes as in fisim.position):",
                          *("  " + s for s in layout.draw(labels).splitlines())]
                if legend:
                    lines += ["Tile codes:", *("  " + s for s in tile_legend())]
        elif code == ev.EV_TEAM:
            r.roles[a] = b
            lines.append(f"{r.seat(a)} starts on {r.cell(c)}")
        elif code == ev.EV_SETUP_FLOOD:
            lines.append(f"Setup: {r.cell(a)} floods")
        elif code == ev.EV_DEAL:
            deal.setdefault(a, []).append(KIND_NAMES[b])
        elif code == ev.EV_DEAL_WR:
            deal.setdefault(a, []).append("(Waters Rise! set aside)")
        elif code == ev.EV_DEAL_RESHUFFLE:
            lines.append(f"Waters Rise! shuffled back: treasure deck of {a}")
        elif code == ev.EV_FIRST:
            for s in sorted(deal):
                lines.append(f"Dealt to {r.seat(s)}: {', '.join(deal[s])}")
            lines.append(f"Water level {b}; {r.seat(a)} plays first")
        elif code == ev.EV_TURN:
            lines.append(f"Turn {a}: {r.seat(b)}")
        elif code == ev.EV_CHOICE:
            lines.append("  " + r.option(a, b, c))
        elif code == ev.EV_DRAW:
            lines.append(f"  draws {KIND_NAMES[b]}")
        elif code == ev.EV_WATERS_RISE:
            lines.append(f"  water level rises to {a}")
        elif code == ev.EV_FLOOD_ON_TOP:
            lines.append(f"  {_cards(a, 'flood card')} shuffled back on top of the flood pile")
        elif code == ev.EV_TREASURE_RESHUFFLE:
            lines.append(f"  treasure discard shuffled into a new draw pile of {a}")
        elif code == ev.EV_FLOOD_RESHUFFLE:
            lines.append(f"  flood discard shuffled into a new draw pile of {a}")
        elif code == ev.EV_FLOOD:
            lines.append(f"  {r.cell(a)} floods")
        elif code == ev.EV_SINK:
            lines.append(f"  {r.cell(a)} sinks")
        elif code == ev.EV_FLOOD_SUNK:
            lines.append(f"  the flood card of {r.cell(a)} is drawn: sunk already, nothing happens")
        elif code == ev.EV_DROWN:
            lines.append(f"  {r.seat(a)} drowns")
        elif code == ev.EV_WIN:
            lines.append(f"  {r.seat(a)} plays Helicopter Lift from Fools' Landing: the team WINS")
        elif code == ev.EV_LOSE:
            names = [n for i, n in enumerate(LOSS_NAMES) if b >> i & 1]
            primary = LOSS_NAMES[a.bit_length() - 1]
            lines.append(f"  the team LOSES: {primary}" + (f" (also {', '.join(n for n in names if n != primary)})"
                                                          if len(names) > 1 else ""))
    return "\n".join(lines) + "\n"
