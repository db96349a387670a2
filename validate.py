"""Argument checks for the public entry points: one line naming the argument, or a
normalised value.

A graph compiler calls the library with whatever its own code holds: numpy integers
from a shape, numpy bools from a mask, strings from a config file. Each check here
accepts every spelling of its kind and returns the plain Python value, so nothing
past the boundary ever sees a numpy scalar: `np.int32(4096) * 1280 * 5120` wraps
around (an 8 GiB operand passed a 2 GiB check that way), `np.uint16` raises
OverflowError in a product, and `json.dumps` refuses `np.int64`. Anything of
another kind is an `AccelError` naming the argument, never a TypeError, a
ValueError ("truth value of an array is ambiguous") or a silent `bool(1.0)`.
"""

from __future__ import annotations

import numbers
import operator
import sys

from accel.diagnostics import AccelError

# What a value is called in a message: its repr, cut short (a 5,000-digit integer or
# a megabyte of text must not become a megabyte of diagnostic).
_SHOWN_CHARS = 60


def shown(value) -> str:
    """`value`'s repr for a message, at most ~60 characters."""
    if is_integer(value) and abs(int(value)) >= 10**_SHOWN_CHARS:
        # repr() itself fails past 4,300 digits (Python's int-to-text limit).
        return f"an integer of {int(value).bit_length()} bits"
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def clipped(text: str) -> str:
    """A caller's string for a message, cut to ~60 characters (no quotes added)."""
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def _bool_types() -> tuple[type, ...]:
    """bool, and numpy's bool once numpy is loaded: until then no numpy value exists, and
    asking must not load it (`accel-compile --help` answers without numpy, ~0.1 s)."""
    numpy = sys.modules.get("numpy")
    return (bool, numpy.bool_) if numpy is not None else (bool,)


def is_integer(value) -> bool:
    """An integer of any integral type (Python's, numpy's), not a bool."""
    return (isinstance(value, numbers.Integral)
            and not isinstance(value, _bool_types()))


def integer(name: str, value, *, minimum: int | None = None,
            maximum: int | None = None, what: str = "an integer") -> int:
    """`value` as a Python int within [minimum, maximum]; AccelError naming `name`."""
    if type(value) is int:
        # The common case, decided without the abstract-class check below: a perf
        # config's 14 fields are checked for each of the selector's 420-1,650 candidates
        # per arch and type (the nine first selections of a process: ~520 -> ~450 ms).
        v = value
    elif not is_integer(value):
        raise AccelError(f"{name} must be {what}, got {shown(value)}")
    else:
        v = operator.index(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise AccelError(f"{name} must be {what}, got {shown(v)}")
    return v


def positive(name: str, value, maximum: int | None = None) -> int:
    """A positive Python int (`maximum` bounds it, with its own message)."""
    v = integer(name, value, minimum=1, what="a positive integer")
    if maximum is not None and v > maximum:
        raise AccelError(f"{name} is {shown(v)}, more than {maximum}")
    return v


def boolean(name: str, value) -> bool:
    """True or False (numpy's bools too); 1, 1.0, "no" or an array are refused."""
    if isinstance(value, _bool_types()):
        return bool(value)
    raise AccelError(f"{name} must be a bool, got {shown(value)}")


def string(name: str, value, choices=None) -> str:
    """A plain str (a str subclass, e.g. numpy's, becomes one), one of `choices` if given."""
    if not isinstance(value, str):
        raise AccelError(f"{name} must be a string, got {type(value).__name__}")
    v = str.__str__(value)
    if choices is not None and v not in choices:
        raise AccelError(f"{name} must be one of {', '.join(choices)}, got {shown(v)}")
    return v


def optional_string(name: str, value, choices=None) -> str | None:
    return None if value is None else string(name, value, choices)


def instance(name: str, value, kind: type | tuple[type, ...], what: str):
    """`value` if it is a `kind`, else AccelError "`name` must be `what`"."""
    if not isinstance(value, kind):
        raise AccelError(f"{name} must be {what}, got {type(value).__name__}")
    return value
