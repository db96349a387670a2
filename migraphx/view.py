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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod

from accel.migraphx.shaped import standard_strides

Digit = tuple[int, int]  # (extent, stride in elements)


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


@dataclass(frozen=True)
class View:
    dims: tuple[tuple[Digit, ...], ...]
    offset: int = 0

    @staticmethod
    def strided(shape, strides) -> "View":
        return View(tuple(_merge([(d, s)]) for d, s in zip(shape, strides)))

    @staticmethod
    def contiguous(shape) -> "View":
        return View.strided(shape, standard_strides(shape))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(prod(e for e, _ in d) for d in self.dims)

    @property
    def rank(self) -> int:
        return len(self.dims)

    def normalized(self) -> "View":
        return View(tuple(_merge(d) for d in self.dims), self.offset)

    def same_as(self, other: "View") -> bool:
        return self.normalized() == other.normalized()

    def transpose(self, perm) -> "View":
        return View(tuple(self.dims[p] for p in perm), self.offset)

    def slice(self, axis: int, start: int, end: int) -> "View | None":
        """Elements [start, end) of dimension `axis` (0 <= start < end <= extent), or None
        when they are not one run of the dimension's outermost digit (then copy first:
        a copy's dimensions are single digits)."""
        dim = self.dims[axis]
        inner = prod(e for e, _ in dim[1:])
        if start % inner or (end - start) % inner:
            return None
        e0, s0 = dim[0] if dim else (1, 0)
        new_dim = ((((end - start) // inner, s0),) + dim[1:])
        dims = self.dims[:axis] + (new_dim,) + self.dims[axis + 1:]
        return View(dims, self.offset + (start // inner) * s0)

    def reshape(self, new_shape) -> "View | None":
        """The view of the same elements with logical shape `new_shape` (row-major
        regrouping), or None when the digits cannot be regrouped without a copy."""
        digits = list(_merge(d for dim in self.dims for d in dim))
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
        return View(tuple(out), self.offset) if not digits else None

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
            cur = self.dims[i - lead]
            size = prod(e for e, _ in cur)
            if size == n:
                dims.append(cur)
            elif size == 1:
                dims.append(((n, 0),))
            else:
                return None
        return View(tuple(dims), self.offset)

    def index_exprs(self, base_shape) -> list[str] | None:
        """Affine expressions (in d0, d1, ...) of the buffer coordinates, when the buffer
        is a row-major array of `base_shape` and every digit falls inside one coordinate;
        else None (then index the buffer flattened, see `offset_expr`)."""
        if self.offset:
            return None
        strides = standard_strides(base_shape)
        refined = self._split_at(strides)
        if refined is None:
            return None
        terms: list[list[str]] = [[] for _ in base_shape]
        reach = [0] * len(base_shape)
        for i, digit_exprs in enumerate(refined._digit_exprs()):
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
            terms[j].append(f"d{i}")
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
        return View(tuple(dims), self.offset)

    def offset_expr(self) -> str:
        """The affine expression of the linear buffer offset (in d0, d1, ...)."""
        terms = [expr if s == 1 else f"({expr}) * {s}"
                 for digit_exprs in self._digit_exprs() for (e, s), expr in digit_exprs if s]
        if self.offset:
            terms.append(str(self.offset))
        return " + ".join(terms) if terms else "0"

    def _digit_exprs(self) -> list[list[tuple[Digit, str]]]:
        out = []
        for i, dim in enumerate(self.dims):
            exprs, inner = [], 1
            for k in range(len(dim) - 1, -1, -1):
                e, s = dim[k]
                expr = f"d{i}" if inner == 1 else f"d{i} floordiv {inner}"
                if k > 0:  # the most significant digit needs no wrap-around
                    expr = f"({expr}) mod {e}" if inner != 1 else f"{expr} mod {e}"
                exprs.append(((e, s), expr))
                inner *= e
            out.append(exprs[::-1])
        return out
