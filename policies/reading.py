"""Small readings of the public record and the options the heuristic policies share: the team's
cards of a kind, who collects a treasure, whether an option of a kind is offered.
"""
from fisim.jit.modes import compiled
from fisim.rules import view
from fisim.rules.options import otype


@compiled(counted=False)
def team_count(pub, kind):
    n = 0
    for s in range(view.players(pub)):
        n += view.cards(pub, s, kind)
    return n


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
