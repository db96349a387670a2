"""rocMLIR perf-config strings, parsed into one value type.

A perf config fixes the tile a GEMM kernel is built with. rocMLIR prints it as a
version tag and a comma-separated list of integers:

  v4 (14 fields): mPerBlock, nPerBlock, kpackPerBlock, mPerWave, nPerWave, mnPerXdl,
                  kpack, splitKFactor, scheduleVersion, outputSwizzle, wavesPerEU,
                  gridGroupSize, forceUnroll, bCopyMore
  v3 (11 fields): mPerBlock, nPerBlock, kpackPerBlock, mPerWave, <field 4>, kpack,
                  splitKFactor, scheduleVersion, outputSwizzle, forceUnroll, bCopyMore
  v2 (9 fields):  mPerBlock, nPerBlock, kpackPerBlock, mPerWave, <field 4>, kpack,
                  splitKFactor, forceUnroll, bCopyMore (rocMLIR's older serialization,
                  still in MIGraphX's split-K tests; scheduleVersion and outputSwizzle
                  take their defaults, 1 and 2)

v2 and v3 have no separate nPerWave/mnPerXdl; field 4 is read the legacy way:
  WMMA: field 4 is nPerWave, and mnPerXdl is fixed at 16 (the only WMMA tile).
  MFMA: field 4 is mnPerXdl, and the waves are re-derived for at most 4 per
        workgroup: mWaves = min(mPB/mPW, 4), nWaves = 4/mWaves, mPW = mPB/mWaves,
        nPW = max(nPB/nWaves, mnPerXdl).
Worked examples (rocMLIR's own tests): MFMA `v3:128,64,8,64,32,4,9,2,2,0,1` gives
mPerWave 64, nPerWave 32, mnPerXdl 32, kpack 4; `v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1`
round-trips field for field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from accel import validate
from accel.diagnostics import AccelError

V4_FIELDS = (
    "m_per_block", "n_per_block", "kpack_per_block", "m_per_wave", "n_per_wave",
    "mn_per_xdl", "kpack", "split_k", "schedule_version", "output_swizzle",
    "waves_per_eu", "grid_group_size", "force_unroll", "b_copy_more",
)
V3_FIELDS = (
    "m_per_block", "n_per_block", "kpack_per_block", "m_per_wave", "field4",
    "kpack", "split_k", "schedule_version", "output_swizzle", "force_unroll",
    "b_copy_more",
)
V2_FIELDS = tuple(f for f in V3_FIELDS if f not in ("schedule_version", "output_swizzle"))

# Fields that must be positive; the rest may be zero ("default"/"off").
_POSITIVE = {"m_per_block", "n_per_block", "kpack_per_block", "m_per_wave",
             "n_per_wave", "mn_per_xdl", "kpack", "split_k", "field4"}
_BOOLEAN = {"force_unroll", "b_copy_more"}
# Plain ASCII decimal: int() alone would also take '+8', '1_6' and non-ASCII digits.
_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
# A field is a tile size, a count or a flag; 2**31 already exceeds every rule (LDS,
# registers, grid), so more digits than that are refused before int() sees them
# (int() itself refuses 4,301 digits with a ValueError).
MAX_FIELD = 2**31 - 1
# Each v4 field's least value (PerfConfig's fields are the v4 fields, in order).
_V4_MINIMUM = tuple(1 if name in _POSITIVE else 0 for name in V4_FIELDS)
_MAX_DIGITS = len(str(MAX_FIELD))


def _shortened(text: str) -> str:
    return text if len(text) <= 80 else text[:80] + "..."


@dataclass(frozen=True)
class PerfConfig:
    m_per_block: int
    n_per_block: int
    kpack_per_block: int
    m_per_wave: int
    n_per_wave: int
    mn_per_xdl: int
    kpack: int
    split_k: int = 1
    schedule_version: int = 1
    output_swizzle: int = 2
    waves_per_eu: int = 0
    grid_group_size: int = 0
    force_unroll: int = 1
    b_copy_more: int = 1

    def __post_init__(self):
        if all(type(v) is int and low <= v <= MAX_FIELD
               for v, low in zip(map(self.__getattribute__, V4_FIELDS), _V4_MINIMUM)):
            # The selector builds 420-1,650 candidates per arch and type, all of plain
            # ints in range: checked here without building the messages below (the nine
            # first selections of a process: ~450 -> ~350 ms).
            return
        # A config built by hand (numpy ints from a tuner's table) is held as Python ints.
        for f in fields(self):
            minimum = 1 if f.name in _POSITIVE else 0
            v = validate.integer(f"PerfConfig {f.name}", getattr(self, f.name),
                                 minimum=minimum, maximum=MAX_FIELD,
                                 what=f"an integer in [{minimum}, {MAX_FIELD}]")
            object.__setattr__(self, f.name, v)

    # ---- derived sizes -------------------------------------------------------
    @property
    def k_per_block(self) -> int:
        return self.kpack_per_block * self.kpack

    @property
    def waves_m(self) -> int:
        return self.m_per_block // self.m_per_wave

    @property
    def waves_n(self) -> int:
        return self.n_per_block // self.n_per_wave

    @property
    def num_waves(self) -> int:
        return self.waves_m * self.waves_n

    def block_size(self, wave_size: int) -> int:
        return self.num_waves * wave_size

    @property
    def double_buffered(self) -> bool:
        # scheduleVersion 2 is rocMLIR's double-buffered LDS pipeline, 4 its
        # direct-to-LDS one.
        return self.schedule_version in (2, 4)

    # ---- text ----------------------------------------------------------------
    def __str__(self) -> str:
        return "v4:" + ",".join(str(getattr(self, f)) for f in V4_FIELDS)

    @classmethod
    def parse(cls, text: str, mma_kind: str = "mfma") -> "PerfConfig":
        """Parse a `v2:`/`v3:`/`v4:` string. `mma_kind` ("mfma"/"wmma") decides field 4
        of v2/v3.

        Raises AccelError naming the bad field.
        """
        if not isinstance(text, str):
            raise AccelError(f"perf config must be a string, got {type(text).__name__}")
        mma_kind = validate.string("mma_kind", mma_kind, ("mfma", "wmma"))
        text = str.__str__(text).strip()
        where = f"perf config '{_shortened(text)}'"
        version, sep, body = text.partition(":")
        if not sep or version not in ("v2", "v3", "v4"):
            raise AccelError(f"{where}: expected a 'v2:', 'v3:' or 'v4:' prefix")
        names = {"v2": V2_FIELDS, "v3": V3_FIELDS, "v4": V4_FIELDS}[version]
        parts = body.split(",")
        if len(parts) != len(names):
            raise AccelError(f"{where}: {version} takes {len(names)} fields, got {len(parts)}")
        values: dict[str, int] = {}
        for i, (name, part) in enumerate(zip(names, parts)):
            part = part.strip()
            field = f"{where}: field {i} ({name})"
            if not _INTEGER.fullmatch(part):
                raise AccelError(f"{field} is not an integer: '{_shortened(part)}'")
            if len(part.lstrip("-").lstrip("0")) > _MAX_DIGITS or abs(int(part)) > MAX_FIELD:
                raise AccelError(f"{field} is out of range (at most {MAX_FIELD})")
            v = int(part)
            if v < 0 or (name in _POSITIVE and v == 0):
                raise AccelError(f"{field} must be "
                                 f"{'positive' if name in _POSITIVE else 'non-negative'}, got {v}")
            if name in _BOOLEAN and v > 1:
                raise AccelError(f"{field} must be 0 or 1, got {v}")
            values[name] = v
        if version == "v4":
            cfg = cls(**values)
        else:
            cfg = cls._from_v3(values, mma_kind, text)
        cfg._check_divisibility(text)
        return cfg

    @classmethod
    def _from_v3(cls, v: dict[str, int], mma_kind: str, text: str) -> "PerfConfig":
        mpb, npb, mpw, f4 = v["m_per_block"], v["n_per_block"], v["m_per_wave"], v["field4"]
        if mma_kind == "wmma":
            n_per_wave, mn_per_xdl, m_per_wave = f4, 16, mpw
        else:  # mfma (parse checked the kind)
            mn_per_xdl = f4
            if mpw > mpb or mpb % mpw:
                raise AccelError(f"perf config '{_shortened(text)}': field 3 (m_per_wave) {mpw} "
                                 f"does not divide m_per_block {mpb}")
            waves_m = min(mpb // mpw, 4)
            waves_n = 4 // waves_m
            m_per_wave = mpb // waves_m
            n_per_wave = max(npb // waves_n, mn_per_xdl)
        rest = {k: v[k] for k in ("m_per_block", "n_per_block", "kpack_per_block", "kpack",
                                  "split_k", "schedule_version", "output_swizzle",
                                  "force_unroll", "b_copy_more") if k in v}
        return cls(m_per_wave=m_per_wave, n_per_wave=n_per_wave, mn_per_xdl=mn_per_xdl, **rest)

    def _check_divisibility(self, text: str) -> None:
        if self.m_per_block % self.m_per_wave:
            raise AccelError(f"perf config '{_shortened(text)}': m_per_wave {self.m_per_wave} does not "
                             f"divide m_per_block {self.m_per_block}")
        if self.n_per_block % self.n_per_wave:
            raise AccelError(f"perf config '{_shortened(text)}': n_per_wave {self.n_per_wave} does not "
                             f"divide n_per_block {self.n_per_block}")

    def replace(self, **changes) -> "PerfConfig":
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d.update(changes)
        return PerfConfig(**d)
