"""Calling compiled code that was compiled apart: a policy's entry, and the engine's play_out.

The engine is compiled once for every policy (fisim.engine.runners): a policy's decide is compiled
on its own, behind an entry taking ENTRY_TYPES (where the game array and the random streams are,
and the number of options), and the engine calls that entry at an address (`call_entry`; where the
game array keeps it is fisim.rules.asking's), with Numba's own calling convention: an exception the
policy raises reaches the caller as from any compiled call. A policy's code that plays games on
(search's rollouts) calls the engine's play_out the same way (`call_play_out`, PLAY_OUT_TYPES), at
the address the engine exports under the symbol PLAY_OUT, so no policy imports the engine.
Interpreted (NUMBA_DISABLE_JIT=1), an address is the number of a Python function (python_address).
"""
import numbers

import llvmlite.binding
import numpy as np
from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from fisim.jit.intrinsics import python_meaning

ENTRY_TYPES = (types.CPointer(types.int32), types.int64, types.CPointer(types.uint64))
# the engine's play_out: the game array and its size, the streams, the policy's address, the option
PLAY_OUT_TYPES = (types.CPointer(types.int32), types.int64, types.CPointer(types.uint64), types.int64, types.int64)
PLAY_OUT = "fisim_play_out"     # the symbol the engine's play_out is exported as (fisim.engine.runners)
_python_entries = []        # interpreted: the entries, an address being an index into this list + 1
_python_symbols = {}        # interpreted: the exported names' addresses
_python_arrays = {}         # interpreted: the exported arrays, by name


def python_address(entry):
    """Interpreted: the address under which the engine calls the Python function `entry`."""
    _python_entries.append(entry)
    return len(_python_entries)


def chosen(index):
    """decide's return value as its entry returns it to the engine, which reads an int64.
    Interpreted, anything but an integer raises here (compiled: `_chosen`)."""
    if not isinstance(index, numbers.Integral):
        raise TypeError(f"decide() must return an int, the index of the option chosen, not {type(index).__name__}")
    return index


@overload(chosen)
def _chosen(index):
    """An integer of any width as int64; anything else as it is, so that the entry's return type
    shows it and fisim.engine.runners refuses the policy (a tuple would be written past the int64
    the engine reads, a float read as an index)."""
    if isinstance(index, types.Integer):
        return lambda index: np.int64(index)
    return lambda index: index


@python_meaning(lambda address, g, n, streams: _python_entries[address - 1](g, n, streams))
@intrinsic
def call_entry(typingctx, address, g, n, streams):
    """The policy entry at `address`, called on game array g's and the streams' data."""
    if not (_game_arrays(g, streams) and n == types.int64):
        raise TypingError(f"a policy's entry takes an int32 game array, int64 n and uint64 streams, "
                          f"not {g}, {n}, {streams}")
    return types.int64(types.int64, g, n, streams), _call(ENTRY_TYPES, lambda game, count, rng: (game.data, count,
                                                                                                  rng.data))


@python_meaning(lambda address, g, streams, policy, c: _python_entries[address - 1](g, len(g), streams, policy, c))
@intrinsic
def call_play_out(typingctx, address, g, streams, policy, c):
    """The engine's play_out at `address` (symbol_address(PLAY_OUT)): game array g played on to its
    end from option c, the policy whose entry is at address `policy` deciding."""
    if not (_game_arrays(g, streams) and policy == types.int64 and c == types.int64):
        raise TypingError(f"play_out takes an int32 game array, uint64 streams and int64 policy and option, "
                          f"not {g}, {streams}, {policy}, {c}")
    return types.int64(types.int64, g, streams, policy, c), _call(
        PLAY_OUT_TYPES, lambda game, rng, policy_, c_: (game.data, game.nitems, rng.data, policy_, c_))


def _game_arrays(g, streams):
    return (isinstance(g, types.Array) and g.dtype == types.int32 and isinstance(streams, types.Array)
            and streams.dtype == types.uint64)


def _call(argument_types, arguments):
    """The codegen of a call to the function at the address an intrinsic is handed first, taking
    `argument_types` and returning an int64: `arguments` makes them of the intrinsic's others
    (arrays as Numba's array structures: their data pointer and size)."""
    def codegen(context, builder, signature, args):
        values = [context.make_array(t)(context, builder, v) if isinstance(t, types.Array) else v
                  for t, v in zip(signature.args[1:], args[1:])]
        function_type = context.call_conv.get_function_type(types.int64, argument_types)
        function = builder.inttoptr(args[0], function_type.as_pointer())
        status, result = context.call_conv.call_function(builder, function, types.int64, argument_types,
                                                         arguments(*values))
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result
    return codegen


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
