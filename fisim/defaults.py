"""What fisim plays when not told otherwise, in one place: the command line's options and the
Python API's arguments both read these names, so a default changes here and nowhere else."""
POLICY = "planner"              # who plays: every command and API function
LEVEL = "normal"                # one setting (simulate, replay, tune)
PLAYERS = 3
LAYOUT = "standard"
SIMULATE_GAMES = 10_000         # fisim simulate --games
LEVELS = "novice..legendary"    # a sweep's or the ladder's axes
PLAYER_COUNTS = "2..4"
SWEEP_GAMES = 20_000            # games per cell of a sweep without --games or --ci
CI_MAX_GAMES = 10_000_000       # with --ci: a cell stops here
TRACE_GAMES = 20                # a sweep's games per cell whose win chance is traced (--trace-games) ...
TRACE_WORLDS = 32               # ... each estimate from this many sampled worlds
TUNE_MAX_GAMES = 64_000         # fisim tune: games per value probed, at most
STRONGER_GAMES = 300           # fisim report --stronger: games per win rate a conclusion compares
DESIGN_BUDGET = 2_000_000       # fisim design: games the search may play
DESIGN_TOLERANCE = 0.02         # fisim design: how far a win rate may miss its target and fit
DESIGN_BEST = 3                 # fisim design: the best candidates verified on fresh deals
DESIGN_VERIFY_GAMES = 10_000    # fisim design: fresh games per cell verified when a tolerance of 0 cannot size them
SWEEP_OUT, TUNE_OUT, LADDER_OUT, DESIGN_OUT = "fisim-results", "fisim-tune", "fisim-ladder", "fisim-design"

# The ladder: the defaults play in minutes; FULL_LADDER is the size the README quotes (hours of search).
LADDER_GAMES, LADDER_DEALS, LADDER_REPEATS = 100, 20, 5
REPLAYER = "search:8"           # replays the deals (a policy that draws on its random stream)
FULL_LADDER = {"levels": LEVELS, "players": PLAYER_COUNTS, "games": 2000, "clairvoyant": 32, "deals": 500,
               "repeats": 20, "replayer": REPLAYER}
