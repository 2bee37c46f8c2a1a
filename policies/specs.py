"""What each built-in policy is, declared once: the registry, the `--policy` help, `fisim policies`,
the skill ladder, which policies replay a deal alike, the test suite's compile groups and a
composite's version and fingerprint are all derived from these specs.

A spec is plain data (this module imports nothing compiled), so the command line's help and its
checks of a policy's name stay quick, and a policy's code is imported only when it plays.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Parameter:
    """The one whole number a policy may take after a colon (`search:32`), which its decide reads
    in pub (P_POLICY_ARG)."""
    what: str               # what it counts, for the help and errors
    default: int
    lowest: int
    highest: int


@dataclass(frozen=True)
class Spec:
    """A built-in policy: its name, its code, its version and what every other part needs to know
    of it."""
    name: str
    module: str             # the module whose compiled decide() plays it
    version: int | None     # bumped whenever it plays differently; None: its data file's "version"
    summary: str            # what it does, in one line (the policy help, `fisim policies`)
    parameter: Parameter | None = None
    data: str | None = None         # a data file beside the module (learned numbers), its DATA
    data_digest: str = ""           # the shipped data file's sha256: another content is labelled apart
    builds_on: dict = field(default_factory=dict)  # {policy: the version of it this version was made over}
    plays: tuple = ()       # policies whose compiled entries its compiled code calls (rollouts)
    stochastic: bool = False        # draws on its random stream (else every replay of a deal is one game)
    sees_decks: bool = False        # handed the hidden piles: a measuring stick, not a legal player
    composes: bool = False  # takes another policy to search over: NAME:N/BASE (its default base: `plays`)
    rungs: dict = field(default_factory=dict)      # {its name on the skill ladder: rank, weakest 0}
    candidates: str = ""    # its compiled function giving search its best options, its choice first


SEARCH_BUDGET = Parameter("sampled worlds per decision", 64, 1, 4096)

SPECS = (
    Spec("random", "policies.random", 3, "uniform over the legal options, special cards and ending the phase "
         "included", stochastic=True, rungs={"random": 0}),
    Spec("passive", "policies.passive", 2, "takes no action and plays no card; discards and swims at random: "
         "what the island does to a team that does nothing", stochastic=True, rungs={"passive": 1}),
    Spec("greedy", "policies.greedy", 2, "simple priorities tried in order (capture, escape, collect, give, "
         "shore up)", rungs={"greedy": 2}),
    Spec("expert", "policies.expert", 1, "each option scored by the position it leads to, with a hand-written "
         "evaluation", rungs={"expert": 3}, candidates="candidates"),
    Spec("tuned", "policies.tuned", None, "expert with the evaluation's weights tuned against the win rate",
         data="tuned.json",
         data_digest="b0d2a69cd30be6d4f3c7bc0635ad065c6356215d66368ba11aea2c47e350f435", builds_on={"expert": 1},
         rungs={"tuned": 4}, candidates="candidates"),
    Spec("planner", "policies.planner", 6, "tuned choosing each action for the end of the turn it leads to, "
         "with weights learned for its own play", data="planner.json",
         data_digest="6a94ecee3dea0e1968322e093da20bb3fb6c1a40f7f10be0db96931c6c864a38", builds_on={"tuned": 2},
         rungs={"planner": 5}, candidates="candidates"),
    Spec("deep", "policies.deep", 1, "the planner playing out ten options' turns instead of three, each line "
         "going on into the next player's actions: stronger, at about a quarter of its speed", data="planner.json",
         data_digest="6a94ecee3dea0e1968322e093da20bb3fb6c1a40f7f10be0db96931c6c864a38", builds_on={"planner": 6},
         rungs={"deep": 9}, candidates="candidates"),
    Spec("search", "policies.search", 2, "checks its base's action decisions by playing sampled worlds to the "
         "end; search:N/BASE searches over BASE (a built-in or a .py file), expert by default",
         parameter=SEARCH_BUDGET, plays=("expert",), builds_on={"expert": 1}, stochastic=True, composes=True,
         rungs={"search:8": 6, "search:8/tuned": 7, "search:32": 8, "search:8/planner": 10}),
    Spec("clairvoyant", "policies.clairvoyant", 2, "search with the piles' true order in view",
         parameter=Parameter("worlds per decision (the piles as they lie, later shuffles drawn afresh)", 32, 1, 4096),
         plays=("expert",), builds_on={"expert": 1}, stochastic=True, sees_decks=True),
)
BY_NAME = {spec.name: spec for spec in SPECS}
