"""The target database's instruction menus, as the selector and codegen ask for them."""

from __future__ import annotations

import pickle

import pytest

from accel.target.database import ARCHES


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_mma_for_lists_the_menu_of_those_types_widest_first(arch):
    info = ARCHES[arch]
    pairs = {i.types for i in info.mma}
    for a, b in pairs:
        got = info.mma_for(a, b)
        assert set(got) == {i for i in info.mma if i.types == (a, b)}
        assert [(-i.m * i.n, -i.k) for i in got] == sorted((-i.m * i.n, -i.k) for i in got)
        if a == b:
            assert info.mma_for(a) == got
    assert info.mma_for("f64") == () and not info.supports("f64")


def test_a_chip_with_another_cu_count_or_unpickled_has_the_same_menu():
    info = ARCHES["gfx942"]
    for other in (info.with_cu_count(228), pickle.loads(pickle.dumps(info))):
        assert other.mma_for("f16") == info.mma_for("f16")
    assert pickle.loads(pickle.dumps(info)) == info
