"""Views: a logical tensor laid over a linear buffer, as MIGraphX's transposes and reshapes make them.

A MIGraphX `transpose` permutes strides and a `reshape` of such a view regroups them;
neither moves data. To recognise when a chain of them spells a layout we know (row,
transposed, accel) we keep each value as a View: per logical dimension, its digits
(extent, stride) from most to least significant. Index i of a dimension with digits
(e0,s0),(e1,s1) is split mixed-radix as i = i0*e1 + i1 and lands at offset i0*s0 + i1*s1
of the buffer. Two views denote the same element placement iff their normalised digits
are equal (normalising drops extent-1 digits and merges (e1,s1),(e2,s2) when s1 = e2*s2)
and so are their offsets. A `slice` moves the view's start: `offset` (in elements) is
where logical index 0 lands.

A slice the digits cannot spell (5 of the 6 rows of a dimension of digits (2, 2), (3, 0),
as MIGraphX's group scales make it: 5 is no product of whole digits) is kept as a
window of that dimension: (start, extent), index r of it being index r + start of the
digits. Only a dimension of two or more digits that no merge reduces to one holds a
window (one digit takes any slice as its extent and the offset), so a reader that needs
one stride per dimension (a gemm operand, accel.migraphx.strided) sees "several
strides" and copies; one that reads through an index map (`index_exprs`,
`offset_expr`: floordiv/mod of r + start) reads it in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod

from accel.migraphx.shaped import standard_strides

Digit = tuple[int, int]  # (extent, stride in elements)
Window = tuple[int, int]  # (start, extent) within a dimension's digits


def _merge(digits) -> tuple[Digit, ...]:
    out: list[Digit] = []
    for e, s in digits:
        if e == 1:
            continue
        if out and out[-1][1] == e * s:
            out[-1] = (out[-1][0] * e, s)
        else:
            out.append((e, s))
    return tuple(out)


def _run(dim, start: int, end: int) -> tuple[tuple[Digit, ...], int] | None:
    """(digits, offset) of elements [start, end) of `dim` when they are one run of its
    outermost digit, else None."""
    inner = prod(e for e, _ in dim[1:])
    if start % inner or (end - start) % inner:
        return None
    _, s0 = dim[0] if dim else (1, 0)
    return (((end - start) // inner, s0),) + tuple(dim[1:]), (start // inner) * s0


def _digit_offset(dim, index: int) -> int:
    """Where index `index` of a dimension of digits `dim` lands, from its start."""
    off = 0
    for e, s in reversed(dim):
        off += index % e * s
        index //= e
    return off


def _regroup(dims, new_shape) -> tuple[tuple[Digit, ...], ...] | None:
    """The digits of `dims` regrouped row-major into `new_shape`, or None when a new
    extent cuts a digit unevenly."""
    digits = list(_merge(d for dim in dims for d in dim))
    out = []
    for n in new_shape:
        need, dim = n, []
        while need > 1:
            if not digits:
                return None
            e, s = digits.pop(0)
            if need % e == 0:
                dim.append((e, s))
                need //= e
            elif e % need == 0:
                dim.append((need, s * (e // need)))
                digits.insert(0, (e // need, s))
                need = 1
            else:
                return None
        out.append(tuple(dim))
    return tuple(out) if not digits else None


@dataclass(frozen=True)
class View:
    dims: tuple[tuple[Digit, ...], ...]
    offset: int = 0
    # Per dimension, its window or None; () when no dimension has one.
    windows: tuple[Window | None, ...] = ()

    def __post_init__(self) -> None:
        if not any(self.windows):
            object.__setattr__(self, "windows", ())
        elif len(self.windows) != len(self.dims):
            raise ValueError(f"{len(self.windows)} windows for {len(self.dims)} dimensions")

    @staticmethod
    def strided(shape, strides) -> "View":
        return View(tuple(_merge([(d, s)]) for d, s in zip(shape, strides)))

    @staticmethod
    def contiguous(shape) -> "View":
        return View.strided(shape, standard_strides(shape))

    def window(self, axis: int) -> Window | None:
        return self.windows[axis] if self.windows else None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(w[1] if w else prod(e for e, _ in d)
                     for d, w in zip(self.dims, self.windows or [None] * self.rank))

    @property
    def rank(self) -> int:
        return len(self.dims)

    def normalized(self) -> "View":
        return View(tuple(_merge(d) for d in self.dims), self.offset, self.windows)

    def same_as(self, other: "View") -> bool:
        return self.normalized() == other.normalized()

    def transpose(self, perm) -> "View":
        return View(tuple(self.dims[p] for p in perm), self.offset,
                    tuple(self.window(p) for p in perm) if self.windows else ())

    def slice(self, axis: int, start: int, end: int) -> "View":
        """Elements [start, end) of dimension `axis` (0 <= start < end <= extent): a run
        of the dimension's outermost digit when they are one (of its digits as they
        are, or merged) or a single element, else a window of its merged digits."""
        dim, w = self.dims[axis], self.window(axis)
        lo = start + (w[0] if w else 0)
        found = (None if w else _run(dim, start, end)) or _run(_merge(dim), lo, lo + end - start)
        if found is None and end - start == 1:   # one element: its digits' offset
            found = (), _digit_offset(_merge(dim), lo)
        windows = list(self.windows or [None] * self.rank)
        if found is None:
            new_dim, delta = _merge(dim), 0
            windows[axis] = (lo, end - start)
        else:
            (new_dim, delta), windows[axis] = found, None
        dims = self.dims[:axis] + (new_dim,) + self.dims[axis + 1:]
        return View(dims, self.offset + delta, tuple(windows))

    def reshape(self, new_shape) -> "View | None":
        """The view of the same elements with logical shape `new_shape` (row-major
        regrouping), or None when the digits cannot be regrouped without a copy. A
        windowed dimension must stay one dimension (of the same extent, at the same
        place in the row-major order); the dimensions between windowed ones regroup
        among themselves."""
        if not self.windows:
            dims = _regroup(self.dims, new_shape)
            return View(dims, self.offset) if dims is not None else None
        new_shape, old = list(new_shape), self.shape
        dims, windows, i0, j0 = [], [], 0, 0
        for i, w in enumerate(self.windows):
            if w is None:
                continue
            before = prod(old[:i])
            j = next((j for j in range(j0, len(new_shape))
                      if prod(new_shape[:j]) == before and new_shape[j] == w[1]), None)
            seg = _regroup(self.dims[i0:i], new_shape[j0:j]) if j is not None else None
            if seg is None:
                return None
            dims += list(seg) + [self.dims[i]]
            windows += [None] * len(seg) + [w]
            i0, j0 = i + 1, j + 1
        seg = _regroup(self.dims[i0:], new_shape[j0:])
        if seg is None:
            return None
        return View(tuple(dims) + seg, self.offset, tuple(windows) + (None,) * len(seg))

    def placed(self, lens, axis: int) -> "View":
        """This view's dimensions at `axis` of `lens` (which agree with them there),
        every other dimension repeated (stride 0)."""
        def repeat(ns):
            return tuple(((n, 0),) if n != 1 else () for n in ns)
        after = lens[axis + self.rank:]
        windows = (None,) * axis + tuple(self.windows) + (None,) * len(after) \
            if self.windows else ()
        return View(repeat(lens[:axis]) + self.dims + repeat(after), self.offset, windows)

    def broadcast(self, out_lens) -> "View | None":
        """MIGraphX multibroadcast (numpy rules, aligned right): extent-1 dimensions and
        new leading ones repeat with stride 0. None if the shapes are incompatible."""
        lead = len(out_lens) - self.rank
        if lead < 0:
            return None
        dims = []
        for i, n in enumerate(out_lens):
            if i < lead:
                dims.append(((n, 0),) if n != 1 else ())
                continue
            cur, size = self.dims[i - lead], self.shape[i - lead]
            if size == n:
                dims.append(cur)
            elif size == 1:
                dims.append(((n, 0),))
            else:
                return None
        windows = (None,) * lead + self.windows if self.windows else ()
        return View(tuple(dims), self.offset, windows)

    def index_exprs(self, base_shape, index=None) -> list[str] | None:
        """Affine expressions (in d0, d1, ...) of the buffer coordinates, when the buffer
        is a row-major array of `base_shape` and every digit falls inside one coordinate;
        else None (then index the buffer flattened, see `offset_expr`). `index`: each
        logical index as an expression of the map's dims (d0, d1, ... by default)."""
        if self.offset:
            return None
        strides = standard_strides(base_shape)
        refined = self._split_at(strides)
        if refined is None:
            return None
        terms: list[list[str]] = [[] for _ in base_shape]
        reach = [0] * len(base_shape)
        index = index or [f"d{i}" for i in range(self.rank)]
        for i, digit_exprs in enumerate(refined._digit_exprs(index)):
            for (e, s), expr in digit_exprs:
                if s == 0:
                    continue
                j = next((j for j, st in enumerate(strides) if st <= s), None)
                if j is None or s % strides[j]:
                    return None
                scale = s // strides[j]
                reach[j] += scale * (e - 1)
                terms[j].append(expr if scale == 1 else f"({expr}) * {scale}")
        if any(r >= n for r, n in zip(reach, base_shape)):
            return None
        # linalg takes a loop's range from an operand indexed by that loop alone, so a
        # coordinate indexed by a bare loop index must be covered whole (a slice's is not).
        if any(len(t) == 1 and re.fullmatch(r"d\d+", t[0]) and r != n - 1
               for t, r, n in zip(terms, reach, base_shape)):
            return None
        # An extent-1 loop index is always 0; binding it to an unused extent-1 buffer
        # coordinate keeps the map invertible, which linalg requires of its outputs.
        spare = [j for j, n in enumerate(base_shape) if n == 1 and not terms[j]]
        for i, j in zip((i for i, d in enumerate(self.dims) if not d), spare):
            terms[j].append(index[i])
        return [" + ".join(t) if t else "0" for t in terms]

    def _split_at(self, strides) -> "View | None":
        """The same view with each digit cut where it crosses a buffer coordinate
        (e.g. K's merged (640, 256) over a [.., 80, 8, .., ..] buffer becomes (80, 2048),
        (8, 256)); None if a cut falls inside a digit value."""
        dims = []
        for dim in self.dims:
            out, todo = [], list(dim)
            while todo:
                e, s = todo.pop(0)
                j = next((j for j, st in enumerate(strides) if st <= s), None)
                limit = strides[j - 1] if j else None
                if s == 0 or limit is None or e * s <= limit:
                    out.append((e, s))
                    continue
                if limit % s or e % (limit // s):
                    return None
                f = limit // s
                todo[:0] = [(e // f, limit), (f, s)]
            dims.append(tuple(out))
        return View(tuple(dims), self.offset, self.windows)

    def offset_expr(self, index=None) -> str:
        """The affine expression of the linear buffer offset (in d0, d1, ...; `index` as
        for `index_exprs`)."""
        index = index or [f"d{i}" for i in range(self.rank)]
        terms = [expr if s == 1 else f"({expr}) * {s}"
                 for digit_exprs in self._digit_exprs(index) for (e, s), expr in digit_exprs
                 if s]
        if self.offset:
            terms.append(str(self.offset))
        return " + ".join(terms) if terms else "0"

    def _digit_exprs(self, index) -> list[list[tuple[Digit, str]]]:
        out = []
        for i, dim in enumerate(self.dims):
            w = self.window(i)
            x = f"{index[i]} + {w[0]}" if w and w[0] else index[i]
            atom = x if re.fullmatch(r"d\d+", x) else f"({x})"
            exprs, inner = [], 1
            for k in range(len(dim) - 1, -1, -1):
                e, s = dim[k]
                expr = atom if inner == 1 else f"{atom} floordiv {inner}"
                if k > 0:  # the most significant digit needs no wrap-around
                    expr = f"({expr}) mod {e}" if inner != 1 else f"{expr} mod {e}"
                exprs.append(((e, s), expr))
                inner *= e
            out.append(exprs[::-1])
        return out
