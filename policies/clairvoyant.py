"""`clairvoyant`: sees the decks: not a legal player; bounds what perfect foresight of the cards
could achieve.

It is `search` (policies/search.py) with the hidden order of the treasure and flood draw piles in
view: the engine hands it the game array through both piles instead of pub (policies.sees_decks:
this built-in only, never a policy file), and its rollouts play the piles as they lie
(fisim.rules.worlds.rollout_world). What it does not see is the outcome of a shuffle still to come
(a Waters Rise!, an empty pile): each world draws those afresh, as search's do. So clairvoyant:N
and search:N differ in one thing, the deal of the hidden piles, and the gap between them on the
same deals is what knowing the order of the cards is worth to this search.
"""
from policies.search import decide  # noqa: F401  (the same search)
