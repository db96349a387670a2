"""The grouped workgroup order (codegen/grid_order.py): a bijection onto the C tiles,
and workgroups close in launch order share few M tiles."""

import random

import pytest

from accel.codegen.builder import Emitter
from accel.codegen.grid_order import grouped_tile


def tiles(m_tiles, n_tiles, group):
    em = Emitter()
    return [grouped_tile(em, lin, m_tiles, n_tiles, group) for lin in range(m_tiles * n_tiles)]


@pytest.mark.parametrize("seed", range(40))
def test_grouped_order_is_a_bijection_onto_the_tiles(seed):
    rng = random.Random(seed)
    m_tiles, n_tiles = rng.randint(1, 40), rng.randint(1, 40)
    group = rng.randint(1, m_tiles)
    got = tiles(m_tiles, n_tiles, group)
    assert sorted(got) == [(m, n) for m in range(m_tiles) for n in range(n_tiles)]


def test_group_of_one_is_the_plain_order():
    assert tiles(5, 7, 1) == [(lin // 7, lin % 7) for lin in range(35)]


@pytest.mark.parametrize("m_tiles,n_tiles,group", [(32, 32, 8), (27, 50, 4), (9, 3, 4)])
def test_a_window_of_workgroups_touches_at_most_a_group_of_m_tiles(m_tiles, n_tiles, group):
    """Any group * n_tiles consecutive ids that start a group use <= group M tiles, where
    the plain order would use group."""
    got = tiles(m_tiles, n_tiles, group)
    for start in range(0, len(got), group * n_tiles):
        window = got[start:start + group * n_tiles]
        assert len({m for m, _ in window}) <= group
        # and it covers those M tiles' whole rows of C tiles
        assert len(window) == len({m for m, _ in window}) * n_tiles


def test_with_an_ssa_id_the_map_is_emitted_as_ir():
    """With an SSA id the same function emits IR (no Python-side shortcut)."""
    em = Emitter()
    m, n = grouped_tile(em, "%lin", 10, 6, 4)
    text = "\n".join(em._lines)
    assert isinstance(m, str) and isinstance(n, str)
    assert "arith.select" in text and "arith.divui" in text
