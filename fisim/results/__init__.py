"""Results: what the engine's result rows (fisim.rules.state R_*, one row per game) become.

    games      one row per game as a DataFrame (simulate, a store's --per-game files) and its
               Parquet schema
    chunks     a chunk's record (the aggregates a store keeps of a run of games), where each
               chunk of a cell stands, and which of a cell's chunks count
    tally      the headline numbers of games: win rate, loss causes, turns, treasures

Nothing here reads or writes a store (fisim.store) or plays a game (fisim.cell): rows come in,
frames and records go out.
"""
