"""How the engine calls a policy compiled apart from it.

The engine is compiled once for every policy (fisim.jit.runners): a policy's decide is compiled
on its own, behind an entry taking ENTRY_TYPES (where the game array and the random streams are, and the
number of options), and the engine calls that entry at the address its entry points keep in the
game array (X_POLICY), with Numba's own calling convention: an exception the policy raises reaches
the caller as from any compiled call. The entry hands decide what the engine would have handed it
(`handed`), so a policy plays exactly as if compiled into the engine; compiling a new policy costs
its own code only. pub and the options are handed read-only: a policy that wrote a code into the
options would have the engine play it, legal or not.
Interpreted (NUMBA_DISABLE_JIT=1), an address is the number of a Python entry (python_address).
"""
import numbers

import llvmlite.binding
import numpy as np
from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from fisim.jit.intrinsics import python_meaning, read_only
from fisim.jit.modes import inlined
from fisim.rules.rng import POLICY
from fisim.rules.state import MEM, MEM_SIZE, OPTS, SEEN_DECKS, X_POLICY

ENTRY_TYPES = (types.CPointer(types.int32), types.int64, types.CPointer(types.uint64))
HANDED = SEEN_DECKS         # the game array's ints an entry views: through the policy's memory,
assert HANDED >= OPTS and HANDED >= MEM + MEM_SIZE      # the options and the hidden piles
_python_entries = []        # interpreted: the entries, an address being an index into this list + 1
_python_symbols = {}        # interpreted: the exported names' addresses
_python_arrays = {}         # interpreted: the exported arrays, by name


def python_address(entry):
    """Interpreted: the address under which the engine calls the Python function `entry`."""
    _python_entries.append(entry)
    return len(_python_entries)


@inlined
def handed(g, streams, n, seen):
    """What a policy's decide is handed at a decision of game array g: pub (g's first `seen` ints:
    P_SIZE, or SEEN_DECKS for the clairvoyant reference) and the n options, both read-only, its
    memory and its random stream."""
    return read_only(g[:seen]), read_only(g[OPTS:OPTS + n]), g[MEM:MEM + MEM_SIZE], streams[POLICY:POLICY + 1]


def chosen(index):
    """decide's return value as its entry returns it to the engine, which reads an int64.
    Interpreted, anything but an integer raises here (compiled: `_chosen`)."""
    if not isinstance(index, numbers.Integral):
        raise TypeError(f"decide() must return an int, the index of the option chosen, not {type(index).__name__}")
    return index


@overload(chosen)
def _chosen(index):
    """An integer of any width as int64; anything else as it is, so that the entry's return type
    shows it and fisim.jit.runners refuses the policy (a tuple would be written past the int64
    the engine reads, a float read as an index)."""
    if isinstance(index, types.Integer):
        return lambda index: np.int64(index)
    return lambda index: index


@python_meaning(lambda address, g, n, streams: _python_entries[address - 1](g, n, streams))
@intrinsic
def _call_at(typingctx, address, g, n, streams):
    """The policy entry at `address`, called on game array g's and the streams' data."""
    if not (isinstance(g, types.Array) and g.dtype == types.int32 and isinstance(streams, types.Array)
            and streams.dtype == types.uint64 and n == types.int64):
        raise TypingError(f"the engine calls a policy on an int32 game array, int64 n and uint64 streams, "
                          f"not {g}, {n}, {streams}")

    def codegen(context, builder, signature, args):
        _, game, count, rng = args
        arguments = (context.make_array(g)(context, builder, game).data, count,
                     context.make_array(streams)(context, builder, rng).data)
        function_type = context.call_conv.get_function_type(types.int64, ENTRY_TYPES)
        function = builder.inttoptr(args[0], function_type.as_pointer())
        status, chosen = context.call_conv.call_function(builder, function, types.int64, ENTRY_TYPES, arguments)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return chosen
    return types.int64(types.int64, g, n, streams), codegen


def export(name, address):
    """Make `name` a symbol of this process at `address`, for symbol_address(name) in compiled code."""
    if config.DISABLE_JIT:
        _python_symbols[name] = address
    else:
        llvmlite.binding.add_symbol(name, int(address))


@python_meaning(lambda name: _python_symbols[name])
@intrinsic(prefer_literal=True)
def symbol_address(typingctx, name):
    """The address of the symbol `name` (a constant string), which `export` registered: compiled
    code that calls another policy's entry (search playing expert) finds it so, the address
    resolved when the code is loaded, never kept in Numba's cache."""
    if not isinstance(name, types.StringLiteral):
        return None

    def codegen(context, builder, signature, args):
        symbol = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), name.literal_value)
        return builder.ptrtoint(symbol, ir.IntType(64))
    return types.int64(name), codegen


@inlined
def put_policy(g, address):
    """Keep the address of the policy's compiled entry in game array g."""
    g[X_POLICY] = address & 0xFFFFFFFF
    g[X_POLICY + 1] = address >> 32


@inlined
def policy_at(g, rng, n):
    """The choice among the n options of g of the policy whose entry's address g keeps."""
    address = (np.int64(g[X_POLICY]) & 0xFFFFFFFF) | (np.int64(g[X_POLICY + 1]) << 32)
    return _call_at(address, g, n, rng)


def export_array(name, array):
    """Make `name` a symbol at the data of `array` (float64, kept alive by the caller), for
    exported_array(name, size) in compiled code: values a script changes between runs without a
    compile (scripts/train_tuned.py writes candidate weights so)."""
    if array.dtype != np.float64 or not array.flags.c_contiguous:
        raise TypeError("export_array takes a C-contiguous float64 array")
    _python_arrays[name] = array
    export(name, array.ctypes.data)


@python_meaning(lambda name, size: _python_arrays[name][:size])
@intrinsic(prefer_literal=True)
def exported_array(typingctx, name, size):
    """The float64 array of `size` (a constant) at the symbol `name` (a constant string), which
    export_array registered; read at each call, so a change the script makes is seen at once. It
    holds no reference (the exporter keeps the array alive)."""
    if not isinstance(name, types.StringLiteral) or not isinstance(size, types.IntegerLiteral):
        return None
    array_type = types.Array(types.float64, 1, "C", readonly=True)

    def codegen(context, builder, signature, args):
        from numba.np.arrayobj import make_array, populate_array
        symbol = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), name.literal_value)
        array = make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, 8)
        populate_array(array, data=builder.bitcast(symbol, context.get_value_type(types.CPointer(types.float64))),
                       shape=cgutils.pack_array(builder, [context.get_constant(types.intp, size.literal_value)]),
                       strides=cgutils.pack_array(builder, [itemsize]), itemsize=itemsize, meminfo=None)
        return array._getvalue()
    return array_type(name, size), codegen
