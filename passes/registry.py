"""Passes as data: a frozen dataclass per pass, its fields the pass's typed options.

Python passes cannot be registered with MLIR by name, so `accel-opt` and the
pipelines parse `name{opt=val ...}` themselves (see pipelines/textual.py) and call
`run(module)`. Options round-trip: `AccelPass.parse_options(p.options_text())` == p.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from accel.bindings import ir
from accel.diagnostics import AccelError

PASSES: dict[str, type["AccelPass"]] = {}


def register(cls: type["AccelPass"]) -> type["AccelPass"]:
    """Class decorator: make a pass known to the pipeline parser and accel-opt."""
    if cls.NAME in PASSES:
        raise ValueError(f"pass {cls.NAME} registered twice")
    PASSES[cls.NAME] = cls
    return cls


def option(default, help: str, choices: tuple[str, ...] | None = None):
    """A pass option: a dataclass field with a help text and, for enums, its choices."""
    return dataclasses.field(default=default, metadata={"help": help, "choices": choices})


@dataclass(frozen=True)
class AccelPass:
    NAME: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""

    def run(self, module: ir.Module) -> None:
        raise NotImplementedError

    # ---- options ---------------------------------------------------------------
    @classmethod
    def option_fields(cls) -> tuple[dataclasses.Field, ...]:
        return dataclasses.fields(cls)

    @classmethod
    def from_options(cls, options: dict[str, str]) -> "AccelPass":
        known = {f.name.replace("_", "-"): f for f in cls.option_fields()}
        values = {}
        for key, text in options.items():
            f = known.get(key) or known.get(key.replace("_", "-"))
            if f is None:
                raise AccelError(f"pass '{cls.NAME}' has no option '{key}' "
                                 f"(options: {', '.join(known) or 'none'})")
            values[f.name] = _convert(cls.NAME, f, text)
        return cls(**values)

    def options_text(self) -> str:
        parts = []
        for f in self.option_fields():
            v = getattr(self, f.name)
            if isinstance(v, bool):
                v = "true" if v else "false"
            parts.append(f"{f.name.replace('_', '-')}={v}")
        return " ".join(parts)

    def spec(self) -> str:
        opts = self.options_text()
        return f"{self.NAME}{{{opts}}}" if opts else self.NAME


def _convert(pass_name: str, f: dataclasses.Field, text: str):
    typ = f.type if isinstance(f.type, str) else f.type.__name__
    choices = f.metadata.get("choices")
    where = f"option '{f.name.replace('_', '-')}' of '{pass_name}'"
    if "bool" in typ:
        if text in ("true", "1", ""):
            return True
        if text in ("false", "0"):
            return False
        raise AccelError(f"{where} takes true or false, got '{text}'")
    if "int" in typ:
        try:
            return int(text, 0)
        except ValueError:
            raise AccelError(f"{where} takes an integer, got '{text}'") from None
    if choices and text not in choices:
        raise AccelError(f"{where} must be one of {', '.join(choices)}, got '{text}'")
    return text


# Every pass module, in pipeline order (the front ends, then accel-kernel-pipeline's
# steps): importing one registers its pass.
PASS_MODULES = ("from_migraphx", "from_linalg", "affix_perf_config", "grouped_dispatch",
                "accel_layout", "lower_pack", "plan_kernel", "gemm_to_gpu",
                "grouped_gemm_to_gpu", "elementwise_to_gpu", "copy_to_gpu",
                "wmma_banks")


def load_all() -> dict[str, type[AccelPass]]:
    """Import every pass module so each registers itself; returns the registry."""
    import importlib

    for name in PASS_MODULES:
        importlib.import_module(f"accel.passes.{name}")
    return PASSES
