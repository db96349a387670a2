"""The `accel` dialect: gemm, grouped gemm, pack and unpack ops, the accel layout, perf configs."""
from accel.dialect.accel_tile import AccelTile, ceil_div  # noqa: F401
from accel.dialect.gemm import GemmOp, GemmShape  # noqa: F401
from accel.dialect.grouped_gemm import GroupedGemmOp  # noqa: F401
from accel.dialect.ir_helpers import collect_ops, memref_info  # noqa: F401
from accel.dialect.pack import PackOp, UnpackOp  # noqa: F401
from accel.dialect.perf_config import PerfConfig  # noqa: F401
from accel.dialect.verify import verify_module  # noqa: F401
