"""Numbers a compiled function reads as constants of its code, whichever set its caller hands it.

A table of weights handed down as an array is a value: the code loads it at every read, and
nothing the weights decide folds (docs/engine.md: what it cost expert). `Constants(values)` is
typed by its values: each set is a type of its own, so a function handed one is compiled for that
set, and `w[k]` reads a constant of the code. Only the values' hash is in the type, no address, so
the code is cached as any other (a compiled function handed down instead would be a dynamic global,
never cached). Interpreted (NUMBA_DISABLE_JIT=1), `w[k]` reads the tuple of its values.
"""
import hashlib
import operator

import numpy as np
from numba import types
from numba.core.imputils import lower_constant
from numba.extending import models, overload, register_model, typeof_impl


class Constants:
    """A fixed sequence of floats; `w[k]` reads one."""

    def __init__(self, values):
        self.values = tuple(float(v) for v in values)

    def __getitem__(self, k):
        return self.values[k]

    def __len__(self):
        return len(self.values)


class ConstantsType(types.Dummy):
    """The type of one Constants' values (held by the type, not by the value)."""

    def __init__(self, values):
        self.values = values
        digest = hashlib.sha256(np.array(values).tobytes()).hexdigest()[:16]
        super().__init__(name=f"Constants[{len(values)}]({digest})")


register_model(ConstantsType)(models.OpaqueModel)     # no data: the values are the type's


@typeof_impl.register(Constants)
def _typeof(value, context):
    return ConstantsType(value.values)


@lower_constant(ConstantsType)
def _lower(context, builder, ty, value):
    return context.get_dummy_value()


@overload(operator.getitem)
def _getitem(w, k):
    if isinstance(w, ConstantsType) and isinstance(k, types.Integer):
        table = np.array(w.values)      # frozen into the code: a read at a constant place folds
        return lambda w, k: table[k]
