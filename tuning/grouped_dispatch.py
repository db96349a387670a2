"""Dispatch of a grouped GEMM: which perf config and launch mode, and where they came from.

In order (seed 003's dispatch):
  1. explicit values at the call site (a perf config, a mode other than auto);
  2. the table's entry for the chip and the shape key B{G}D{K}K{N}N{max_seq_len}
     (K the reduction, N the output columns, as the seed names them): the shipped
     tuning/grouped_dispatch.json, or a user's table given by path, which replaces it;
  3. the heuristic: the selector's choice (tuning/selection.py) for one group at the
     envelope, G x max_seq_len x N x K, and the mode rule of tuning/grouped_launch.py.

A table is JSON: {"<arch>": {"<key>": {"perf_config": "v4:...", "mode": "compact"}}}
("mode" optional; other top-level keys not naming a chip are free text). An entry
that cannot serve its key is an error naming the table, the entry and the rule: a
malformed perf config, a k-tile that does not divide K (a tuned winner is for its
exact shape, and a ragged last k-tile is a different kernel than the one tuned), or
any rule of tuning/validity.py (LDS over capacity, registers, ...).
"""

from __future__ import annotations

import json
import pathlib
import re
from dataclasses import dataclass

from accel.dialect.grouped_gemm import MODES
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.target.database import ARCHES, ArchInfo
from accel.tuning.grouped_launch import auto_mode
from accel.tuning.selection import select
from accel.tuning.validity import check_config

SHIPPED_TABLE = pathlib.Path(__file__).with_name("grouped_dispatch.json")
_KEY = re.compile(r"B([0-9]+)D([0-9]+)K([0-9]+)N([0-9]+)", re.ASCII)
_ENTRY_FIELDS = ("perf_config", "mode")


def shape_key(groups: int, k: int, n: int, max_seq_len: int) -> str:
    return f"B{groups}D{k}K{n}N{max_seq_len}"


@dataclass(frozen=True)
class GroupedDispatch:
    config: PerfConfig
    mode: str                # uniform | compact
    source: str              # explicit | table | heuristic (of the perf config)


def load_table(path: str | pathlib.Path | None = None) -> dict:
    """The table at `path` (the shipped one when None), checked for structure."""
    where = pathlib.Path(path) if path is not None else SHIPPED_TABLE
    try:
        data = json.loads(where.read_text())
    except OSError as e:
        raise AccelError(f"dispatch table {where}: cannot read it ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AccelError(f"dispatch table {where}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise AccelError(f"dispatch table {where}: expected a JSON object at the top")
    for arch in ARCHES:
        entries = data.get(arch, {})
        if not isinstance(entries, dict):
            raise AccelError(f"dispatch table {where}: '{arch}' must map shape keys to entries")
        for key, entry in entries.items():
            what = f"dispatch table {where}: entry {arch}/{key}"
            if not _KEY.fullmatch(key):
                raise AccelError(f"{what}: the key is not B<G>D<K>K<N>N<max_seq_len>")
            if not isinstance(entry, dict) or not isinstance(entry.get("perf_config"), str):
                raise AccelError(f"{what}: expected an object with a 'perf_config' string")
            unknown = sorted(set(entry) - set(_ENTRY_FIELDS))
            if unknown:
                raise AccelError(f"{what}: unknown field '{unknown[0]}' "
                                 f"(known: {', '.join(_ENTRY_FIELDS)})")
            if "mode" in entry and entry["mode"] not in MODES:
                raise AccelError(f"{what}: mode must be one of {', '.join(MODES)}, "
                                 f"got {entry['mode']!r}")
    return {"path": str(where), **{arch: data.get(arch, {}) for arch in ARCHES}}


def dispatch(arch: ArchInfo, *, groups: int, n: int, k: int, max_seq_len: int,
             total_rows: int, in_type: str, out_type: str, mode: str = "auto",
             perf_config: PerfConfig | None = None, table: dict | None = None
             ) -> GroupedDispatch:
    """The perf config and mode of one grouped GEMM (see the module docstring);
    `table` is load_table()'s result (the shipped table when None)."""
    shape = GemmShape(groups, max_seq_len, n, k)
    if perf_config is not None:
        problems = check_config(arch, in_type, shape, perf_config)
        if problems:
            raise AccelError(f"invalid perf config '{perf_config}': " + "; ".join(problems))
        config, source, table_mode = perf_config, "explicit", None
    else:
        table = table if table is not None else load_table()
        key = shape_key(groups, k, n, max_seq_len)
        entry = table[arch.name].get(key)
        if entry is not None:
            config = _entry_config(arch, table["path"], key, entry, in_type, shape)
            source, table_mode = "table", entry.get("mode")
        else:
            config = select(arch, in_type, out_type, shape).best
            source, table_mode = "heuristic", None
    if mode == "auto":
        mode = table_mode or auto_mode(groups, total_rows, max_seq_len, config.m_per_block)
    return GroupedDispatch(config, mode, source)


def _entry_config(arch: ArchInfo, path: str, key: str, entry: dict, in_type: str,
                  shape: GemmShape) -> PerfConfig:
    what = f"dispatch table {path}: entry {arch.name}/{key}"
    try:
        config = PerfConfig.parse(entry["perf_config"], arch.mma_kind)
    except AccelError as e:
        raise AccelError(f"{what}: {e.message}") from None
    if shape.k % config.k_per_block:
        raise AccelError(f"{what}: k-tile {config.k_per_block} does not divide K = {shape.k}")
    problems = check_config(arch, in_type, shape, config)
    if problems:
        raise AccelError(f"{what}: perf config '{entry['perf_config']}' is invalid for "
                         f"{in_type}: {problems[0]}")
    return config
