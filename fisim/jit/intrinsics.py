"""The engine's intrinsics: operations Numba has no words for, written as LLVM IR. Each has a
plain-Python meaning, which it is under NUMBA_DISABLE_JIT=1 (the engine then runs interpreted).
"""
import numpy as np
from llvmlite import ir
from numba import carray, config, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


def python_meaning(meaning):
    """Decorator of an intrinsic: under NUMBA_DISABLE_JIT, the plain function `meaning` instead."""
    return lambda compiled: meaning if config.DISABLE_JIT else compiled


def _read_only_view(array):
    view = array.view()
    view.flags.writeable = False
    return view


@python_meaning(_read_only_view)
@intrinsic
def read_only(typingctx, array):
    """The same array, typed read-only: Numba refuses to compile a write to it. The policy is
    handed pub this way (R-INFO), so pub needs no copy at each decision."""
    def codegen(context, builder, sig, args):
        return impl_ret_borrowed(context, builder, sig.return_type, args[0])
    return array.copy(readonly=True)(array), codegen


@python_meaning(lambda count, dtype: np.empty(count, dtype))
@intrinsic
def stack_empty(typingctx, count, dtype):
    """An uninitialised 1-d array of `count` (a constant) items of `dtype` on the calling function's
    stack: no allocation and no reference count, for a policy's small per-decision tables (a heap
    array costs a malloc, a free and counted references at each decision). It lives until the
    function returns, and must not be returned or kept; in a loop, each pass gets the same memory."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    item = dtype.instance_type if isinstance(dtype, types.NumberClass) else dtype.dtype
    array_type = types.Array(item, 1, "C")

    def codegen(context, builder, sig, args):
        n = count.literal_value
        data = cgutils.alloca_once(builder, context.get_value_type(item), size=n)
        array = make_array(array_type)(context, builder)
        size = context.get_constant(types.intp, n)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_value_type(item)))
        populate_array(array, data=data, shape=cgutils.pack_array(builder, [size]),
                       strides=cgutils.pack_array(builder, [itemsize]), itemsize=itemsize, meminfo=None)
        return array._getvalue()
    return array_type(count, dtype), codegen


@python_meaning(lambda array: array)
@intrinsic
def uncounted(typingctx, array):
    """A view of `array` without a reference count (no meminfo), for the loops that play games.

    Every pass of a counted array between compiled functions, and every slice of it, costs an
    atomic increment and decrement; a view without meminfo makes both a null test
    (docs/benchmarks.md: what it bought). The caller must keep `array` itself alive while the view
    is used."""
    def codegen(context, builder, sig, args):
        source = make_array(array)(context, builder, args[0])
        view = make_array(array)(context, builder)
        for field in ("data", "nitems", "itemsize", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()
    return array(array), codegen


# the `count` items at a pointer as an array: compiled code hands a policy's entry pointers,
# interpreted code the arrays themselves
array_at = python_meaning(lambda array, count: array[:count])(carray)


@python_meaning(lambda m: (int(m) & -int(m)).bit_length() - 1)
@intrinsic
def trailing_zeros(typingctx, m):
    """The index of the lowest set bit of a nonzero integer m, in one instruction (x86's tzcnt)
    where a multiply and a table took several: the loops over a mask's cells visit its set bits."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.IntType(1)(0))     # (0: defined for m == 0 too, at no cost)
    return m(m), codegen


@python_meaning(lambda m: int(m).bit_count())
@intrinsic
def bit_count(typingctx, m):
    """The number of set bits of a non-negative integer m, in one instruction (popcnt)."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return m(m), codegen
