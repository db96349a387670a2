"""Which C tile a workgroup computes: the grid order, grouped for L2 reuse.

The grid is (x = N tiles, y = M tiles, z = batch). Taken in plain order (x fastest)
consecutive workgroups share one M tile's rows of A and walk all of B. With a group of
G M tiles (perf-config gridGroupSize, the plan's `grid_group`) the linear workgroup id
lin = y * (N tiles) + x runs down G M tiles first, then across N:

  group = lin // (G * N tiles),  at = lin % (G * N tiles),  rows = G (or, in the last
  group, the M tiles left: M tiles % G)
  M tile = group * G + at % rows,  N tile = at // rows

so workgroups running at once touch G rows of A tiles and few columns of B tiles.
Every group but the last has G * (N tiles) ids and the last rows * (N tiles), so the map
is a bijection onto the (M tile, N tile) pairs (test/python/test_grid_order.py).
Written over Emitter values: with ints it computes the map itself.
"""

from __future__ import annotations

from accel.codegen.builder import Emitter, Value


def grouped_tile(em: Emitter, lin: Value, m_tiles: int, n_tiles: int,
                 group: int) -> tuple[Value, Value]:
    """(M tile, N tile) of linear workgroup id `lin` for groups of `group` M tiles
    (1: the plain order, N fastest); `group` is at most m_tiles."""
    if group <= 1:
        return em.div(lin, n_tiles), em.rem(lin, n_tiles)
    per_group = group * n_tiles
    first = em.mul(em.div(lin, per_group), group)
    at = em.rem(lin, per_group)
    m, n = em.add(first, em.rem(at, group)), em.div(at, group)
    left = m_tiles % group          # M tiles of the last, partial group (0: none)
    if left:
        partial = em.lt(m_tiles - left - 1, first)
        m = em.select(partial, em.add(first, em.rem(at, left)), m)
        n = em.select(partial, em.div(at, left), n)
    return m, n
