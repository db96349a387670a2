"""Launch geometry of a grouped GEMM (accel.grouped_gemm): the grid rule of its kernels.

The host knows G, L_max (the A/C buffers' rows), max_seq_len and the tile, never a
group's length, so every grid is an upper bound sized from those alone:

  tiles per group   T_g = ceil(max_seq_len / mPerBlock)
  uniform           main grid (G * T_g, ceil(N / nPerBlock), 1)
  compact           tile-list capacity T = min(G * T_g, floor((L_max + G * (mPerBlock - 1)) / mPerBlock))
                    prep grid (1, 1, 1), main grid (T, ceil(N / nPerBlock), 1),
                    tile list T + 1 i32 entries (the workspace)

Workgroup x is a position in the (group, M tile) list: in uniform mode the pair itself
(x = group * T_g + M tile), in compact mode an index into the device-side list. x is
the large dimension because HIP caps grid y and z at 65535 and G * T_g passes that
(seed 003: B1024, max_seq_len 7680, 128-row tiles: 61440; a 64-row tile: 122880).
The compact bound: group b has ceil(len_b / mPB) <= (len_b + mPB - 1) / mPB tiles, and
the lengths sum to at most L_max, so all groups together have at most
(L_max + G * (mPB - 1)) / mPB; and none has more than T_g.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.dialect.accel_tile import ceil_div

# Threads of the tile-list prep kernel: one workgroup scans all of seq_offsets.
TILE_LIST_BLOCK = 256
# The list entry that ends the occupied tiles (and fills the rest of the list): any
# value >= G * T_g would do; all ones reads as "no tile" under an unsigned compare.
TILE_LIST_SENTINEL = -1


@dataclass(frozen=True)
class GroupedLaunch:
    groups: int
    total_rows: int          # L_max
    max_seq_len: int
    m_per_block: int
    n_tiles: int
    mode: str                # uniform | compact

    @property
    def tiles_per_group(self) -> int:
        return ceil_div(self.max_seq_len, self.m_per_block)

    @property
    def uniform_tiles(self) -> int:
        return self.groups * self.tiles_per_group

    @property
    def list_capacity(self) -> int:
        """Occupied (group, M tile) pairs possible at most (compact mode's grid x)."""
        by_rows = (self.total_rows + self.groups * (self.m_per_block - 1)) // self.m_per_block
        return min(self.uniform_tiles, by_rows)

    @property
    def grid(self) -> tuple[int, int, int]:
        """The main kernel's grid: the upper bound the host launches."""
        x = self.uniform_tiles if self.mode == "uniform" else self.list_capacity
        return (x, self.n_tiles, 1)

    @property
    def tile_list_entries(self) -> int:
        """i32 entries of the device-side tile list (compact mode): capacity + sentinel."""
        return self.list_capacity + 1 if self.mode == "compact" else 0


def auto_mode(groups: int, total_rows: int, max_seq_len: int, m_per_block: int) -> str:
    """compact when its grid bound launches fewer workgroups than the uniform grid, i.e.
    when the buffers cannot hold every group at max_seq_len (L_max < G * max_seq_len,
    up to tile rounding); uniform otherwise, where a prep kernel would save nothing the
    early exit of an empty tile does not."""
    probe = GroupedLaunch(groups, total_rows, max_seq_len, m_per_block, 1, "compact")
    return "compact" if probe.list_capacity < probe.uniform_tiles else "uniform"
