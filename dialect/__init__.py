"""The `accel` dialect: gemm, grouped gemm, pack and unpack ops, the accel layout, perf configs."""
from accel.dialect.accel_layout import AccelTile, ceil_div  # noqa: F401
from accel.dialect.ops import (  # noqa: F401
    GemmOp, GemmShape, PackOp, UnpackOp, collect_ops, memref_info, verify_module,
)
from accel.dialect.perf_config import PerfConfig  # noqa: F401
from accel.dialect.grouped_gemm import GroupedGemmOp  # noqa: F401,E402  (registers the op)
