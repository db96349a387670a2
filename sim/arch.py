"""Per-arch facts the simulator needs: wave size, LDS capacity and the LDS bank model.

Kept here rather than read from accel.target so that a wrong entry in the codegen's
target database cannot be silently mirrored by the simulator that checks codegen.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.diagnostics import AccelError


@dataclass(frozen=True)
class SimArch:
    name: str
    wave_size: int
    lds_bytes: int
    # LDS bank model: `banks` banks of `bank_bytes` each; one access op is serviced in
    # groups of lanes that together move at most banks*bank_bytes bytes per clock
    # (so 32 lanes of b32, 16 of b64, 8 of b128). Within a group, a bank addressed at
    # k distinct dwords costs k clocks; lanes reading the same dword share it
    # (broadcast). Extra clocks = sum over groups of (max over banks of k) - 1.
    banks: int
    bank_bytes: int
    bank_source: str


ARCHS = {
    "gfx942": SimArch(
        "gfx942", 64, 64 * 1024, 32, 4,
        "AMD Instinct MI300 (CDNA3) ISA reference, 'Local Data Share': 64 KiB per CU in "
        "32 banks of 4 bytes; wave64 ds_read/write are serviced 128 bytes per clock "
        "(half-wave for b32, quarter-wave for b64, eighth-wave for b128)",
    ),
    # RDNA3/4 LDS is 128 KiB per WGP as 64 banks; in CU mode (the mode we model) each
    # CU half sees 32 banks of 4 bytes.
    "gfx1100": SimArch(
        "gfx1100", 32, 64 * 1024, 32, 4,
        "AMD RDNA3 ISA reference guide, 'Local Data Share': 64 banks per WGP, 32 banks of "
        "4 bytes per CU in CU mode; a wave32 access is serviced 128 bytes per clock",
    ),
    "gfx1201": SimArch(
        "gfx1201", 32, 64 * 1024, 32, 4,
        "AMD RDNA4 ISA reference guide, 'Local Data Share': same LDS organisation as RDNA3 "
        "(32 banks of 4 bytes per CU in CU mode)",
    ),
}


def sim_arch(name: str) -> SimArch:
    if name not in ARCHS:
        raise AccelError(f"simulator: unknown arch '{name}' (known: {', '.join(ARCHS)})")
    return ARCHS[name]
