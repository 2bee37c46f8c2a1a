"""How each function of the engine and the built-in policies is compiled, declared beside it.

Numba compiles a jitted function once per distinct tuple of argument types, and by default it
counts an integer constant (`Literal[int](3)`) and int32 against int64 as distinct, so a function
called with several decision kinds and integer widths is compiled once for each (docs/benchmarks.md
gives how often). `compiled` functions are compiled once for all their callers: their integer
arguments are typed int64, whatever the caller passes (Numba casts at the call), which is what
Numba's own arithmetic on them gives anyway.

A `compiled` function is a function of its own that LLVM may inline into its callers; `inlined`
copies the function's Numba IR into every caller before typing (Numba's inline="always"), which
costs compile time at every call site: docs/engine.md says where it pays.

`compiled(counted=False)` compiles a function without reference counting. Numba otherwise counts
a reference to every array a function is handed or slices, a call into its runtime each time, even
for the views without a count that games are played on (fisim.jit.intrinsics.uncounted). Every
function of the rules is compiled so: each uses only arrays its caller keeps alive, and allocates
and returns none (Numba will not compile an allocation, or the return of a new array, without
counting).

A policy file's own functions are compiled again with Numba's bounds checks (`bounds_checked`):
its decide is handed views of the game array, and an index past them would write into the game.

With NUMBA_DISABLE_JIT=1 each decorator returns the plain Python function: the engine then runs
interpreted (fisim.jit.intrinsics gives each intrinsic its Python meaning), and NumPy's integer
scalars wrap around silently, as compiled integers do (the random streams rely on it).
"""
import warnings

from numba import config, njit, types
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher

if config.DISABLE_JIT:      # (a filter, not np.seterr: that is each thread's own; pytest: pyproject.toml)
    warnings.filterwarnings("ignore", "overflow encountered in scalar", RuntimeWarning)


def _general(t):
    """The type a compiled function is compiled for when called with an argument of type t."""
    t = types.unliteral(t)
    return types.int64 if isinstance(t, types.Integer) and t.signed else t


class _OneSignature(CPUDispatcher):
    """A dispatcher that types the integer arguments of every call as int64 (so one compiled
    version serves every caller)."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(map(_general, args)), {k: _general(v) for k, v in kws.items()})


def compiled(func=None, *, counted=True):
    """Decorator: compile `func` once for all its callers (see the module's docstring);
    counted=False: without reference counting. No C-callable wrapper is made (fisim takes no
    function's address)."""
    def wrap(f):
        if config.DISABLE_JIT:
            return f
        options = {"nopython": True, "no_cfunc_wrapper": True, "_nrt": counted}
        return _OneSignature(py_func=f, locals={}, targetoptions=options)
    return wrap(func) if func is not None else wrap


def inlined(func):
    """Decorator: copy `func` into each compiled caller before typing (Numba's inline="always"):
    only for the few functions where a paired measurement shows it pays (docs/engine.md)."""
    return njit(inline="always")(func)


def bounds_checked(module):
    """Put in place of each jitted function that `module` (a policy file) defines the same function
    compiled with Numba's bounds checks: an index out of an array's bounds (mem[404]) raises
    IndexError, which stops the run with one line, where it would read or write the game array
    around pub, the options and mem (the hidden piles, the engine's own fields) or memory past it.
    The built-in policies are compiled without, for their speed. Interpreted, NumPy checks."""
    for name, value in list(vars(module).items()):
        if isinstance(value, Dispatcher) and getattr(value.py_func, "__module__", None) == module.__name__:
            setattr(module, name, type(value)(value.py_func, value.locals,
                                              {**value.targetoptions, "boundscheck": True}))
