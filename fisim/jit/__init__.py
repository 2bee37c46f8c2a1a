"""The Numba toolkit, below the rules and knowing nothing of the game: how each function is
compiled (modes), the intrinsics, calling compiled code at an address and symbols (policy_call),
modules written into the cache directory (cache), values compiled as constants (constants). The
engine's assembly built with it is fisim.engine (docs/engine.md)."""
