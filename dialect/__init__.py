"""The `accel` dialect: gemm, pack and unpack ops, the accel layout, perf configs."""
from accel.dialect.accel_layout import AccelTile, ceil_div  # noqa: F401
from accel.dialect.ops import (  # noqa: F401
    GemmOp, GemmShape, PackOp, UnpackOp, collect_ops, memref_info, verify_module,
)
from accel.dialect.perf_config import PerfConfig  # noqa: F401
