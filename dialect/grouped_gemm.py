"""`accel.grouped_gemm`: one GEMM per group over that group's packed rows (seed 003).

For each group b of G, with s = seq_offsets[b], e = seq_offsets[b+1] read on the device:

  C[s:e, :] = A[s:e, :] @ B[b] + bias[b*N:(b+1)*N]      (the bias added in f32)

  "accel.grouped_gemm"(%a, %b, %seq_offsets, %c, %bias)
      {arch = "gfx942", max_seq_len = 7680 : i64, b_layout = "stacked", mode = "compact",
       perf_config = "v4:..."}
      : (memref<LxKxbf16>, memref<(G*N)xKxbf16>, memref<(G+1)xi32>, memref<LxNxbf16>,
         memref<(G*N)xbf16>) -> ()

Operands, destination style (C is written in place, no results):
  A            [L, K]       packed rows of every group; L = L_max, the buffers' row capacity
  B            [G*N, K]     b_layout = "stacked": one N x K panel per group, stacked tall
               [G, K, N]    b_layout = "row": group b's K x N matrix
  seq_offsets  [G+1] i32    prefix sum of the groups' row counts (on the device)
  C            [L, N]       packed output; rows past seq_offsets[G] are never written
  bias         [G*N]        optional 5th operand: group b's N values, of C's element type
A group longer than max_seq_len has only its first max_seq_len rows computed (the
envelope the launch is sized by, as the seed's Triton baseline clamps it).

`mode` = "uniform" (a regular grid over group, M tile and N tile) or "compact" (a prep
kernel lists the occupied (group, M tile) pairs on the device, the main kernel walks
the list); absent or "auto" until the dispatch (accel-grouped-dispatch) decides it.
`config_source` records where the perf config came from: "explicit", "table" or
"heuristic".
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError, located
from accel.dialect.gemm_like import GemmLikeOp
from accel.dialect.ir_helpers import int_attr, memref_info, string_attr
from accel.dialect.op_rules import check_bias_type, check_nonempty, check_plain_buffer
from accel.dialect.perf_config import PerfConfig

B_LAYOUTS = ("stacked", "row")
MODES = ("uniform", "compact")
CONFIG_SOURCES = ("explicit", "table", "heuristic")
# The seed's input types; the output is the input type or f32.
GROUPED_INPUTS = ("f16", "bf16")
GROUPED_ATTRIBUTES = ("arch", "max_seq_len", "b_layout", "mode", "perf_config",
                      "config_source")


class GroupedGemmOp(GemmLikeOp):
    OP_NAME = "accel.grouped_gemm"

    # ---- reading -------------------------------------------------------------------
    @property
    def seq_offsets(self) -> ir.Value:
        return self.op.operands[2]

    @property
    def c(self) -> ir.Value:
        return self.op.operands[3]

    @property
    def bias(self) -> ir.Value | None:
        return self.op.operands[4] if len(self.op.operands) == 5 else None

    @property
    def max_seq_len(self) -> int | None:
        return int_attr(self.op, "max_seq_len")

    @property
    def b_layout(self) -> str:
        return string_attr(self.op, "b_layout", "stacked")

    @property
    def mode(self) -> str:
        """uniform | compact, or auto while the dispatch has not decided."""
        return string_attr(self.op, "mode", "auto")

    @property
    def config_source(self) -> str | None:
        return string_attr(self.op, "config_source")

    @property
    def groups(self) -> int:
        return memref_info(self.seq_offsets)[0][0] - 1

    @property
    def total_rows(self) -> int:
        """L_max: the row capacity of A and C."""
        return memref_info(self.a)[0][0]

    @property
    def k(self) -> int:
        return memref_info(self.a)[0][1]

    @property
    def n(self) -> int:
        return memref_info(self.c)[0][1]

    # ---- writing -------------------------------------------------------------------
    def set_dispatch(self, config: PerfConfig, mode: str, source: str) -> None:
        self.op.attributes["perf_config"] = ir.StringAttr.get(str(config))
        self.op.attributes["mode"] = ir.StringAttr.get(mode)
        self.op.attributes["config_source"] = ir.StringAttr.get(source)

    # ---- verification --------------------------------------------------------------
    def verify(self) -> None:
        """Raise one AccelError at the op's location for the first rule broken."""
        with located(self.location):
            self._verify()

    def _verify(self) -> None:
        op = self.op
        if len(op.operands) not in (4, 5) or len(op.results) != 0:
            raise AccelError("'accel.grouped_gemm' takes 4 operands (A, B, seq_offsets, C), "
                             "or 5 (A, B, seq_offsets, C, bias), and has no results")
        info = self.check_frame(GROUPED_ATTRIBUTES)
        msl = self.max_seq_len
        if msl is None:
            raise AccelError("'accel.grouped_gemm' requires a 'max_seq_len' attribute")
        if self.b_layout not in B_LAYOUTS:
            raise AccelError(f"b_layout must be one of {', '.join(B_LAYOUTS)}, "
                             f"got '{self.b_layout}'")
        if self.mode not in MODES + ("auto",):
            raise AccelError(f"mode must be one of {', '.join(MODES)} or auto, "
                             f"got '{self.mode}'")
        source = self.config_source
        if source is not None and source not in CONFIG_SOURCES:
            raise AccelError(f"config_source must be one of {', '.join(CONFIG_SOURCES)}, "
                             f"got '{source}'")
        values = [(self.a, "A"), (self.b, "B"), (self.seq_offsets, "seq_offsets"),
                  (self.c, "C")] + ([(self.bias, "bias")] if self.bias is not None else [])
        infos = {name: memref_info(v) for v, name in values}
        for v, name in values:
            check_nonempty(infos[name][0], name)
            check_plain_buffer(v, name)
        (a_shape, a_t), (b_shape, b_t) = infos["A"], infos["B"]
        (s_shape, s_t), (c_shape, c_t) = infos["seq_offsets"], infos["C"]
        if a_t not in GROUPED_INPUTS or not info.supports(a_t):
            raise AccelError(f"element type {a_t} is not supported by accel.grouped_gemm on "
                             f"{self.arch} (expected one of {', '.join(GROUPED_INPUTS)})")
        if b_t != a_t:
            raise AccelError(f"A and B element types differ: {a_t} vs {b_t}")
        if c_t not in (a_t, "f32"):
            raise AccelError(f"output type {c_t} is not supported for {a_t} inputs "
                             f"(expected {a_t} or f32)")
        if len(s_shape) != 1 or s_t != "i32":
            raise AccelError(f"seq_offsets must be a rank-1 memref of i32 [G+1], got "
                             f"{list(s_shape)} of {s_t}")
        g = s_shape[0] - 1
        if g < 1:
            raise AccelError("seq_offsets must hold G+1 >= 2 offsets (at least one group)")
        if len(a_shape) != 2:
            raise AccelError(f"A must be rank 2 [L, K], got rank {len(a_shape)}")
        if len(c_shape) != 2:
            raise AccelError(f"C must be rank 2 [L, N], got rank {len(c_shape)}")
        (rows, k), (c_rows, n) = a_shape, c_shape
        if c_rows != rows:
            raise AccelError(f"A and C hold different row counts: {rows} vs {c_rows}")
        if self.b_layout == "stacked":
            if b_shape != [g * n, k]:
                raise AccelError(f"B in 'stacked' layout must be [G*N, K] = [{g * n}, {k}], "
                                 f"got {b_shape}")
        elif b_shape != [g, k, n]:
            raise AccelError(f"B in 'row' layout must be [G, K, N] = [{g}, {k}, {n}], "
                             f"got {b_shape}")
        if self.bias is not None:
            bias_shape, bias_t = infos["bias"]
            check_bias_type(bias_t, c_t)
            if bias_shape != [g * n]:
                raise AccelError(f"bias must be [G*N] = [{g * n}], got {bias_shape}")
        if not 1 <= msl <= rows:
            raise AccelError(f"max_seq_len must be in [1, L_max = {rows}], got {msl}")
        if self.perf_config_text is not None:
            self.perf_config  # noqa: B018  (parsing reports a malformed config at the op)
