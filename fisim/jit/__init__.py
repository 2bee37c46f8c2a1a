"""All that is particular to Numba: how each function is compiled (modes), the intrinsics, how the
engine calls a policy (policy_call), the entry points, the generated modules and their cache key,
and the runners that compile them (docs/engine.md)."""
