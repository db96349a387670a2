"""The element types accel handles: their sizes and their numpy host types.

One table for the compiler side (codegen, selection, passes, the library). The
simulator keeps its own in sim/types.py on purpose: it must not share a mistake with
the code it checks.
"""

import ml_dtypes
import numpy as np

# Bytes per element. f8E4M3FN is listed for selection only (gfx1201's fp8 WMMA has no
# codegen: its lane layout is not confirmed by execution, LAYOUTS.md).
ELEMENT_BYTES = {"i8": 1, "f16": 2, "bf16": 2, "f32": 4, "i32": 4, "f8E4M3FN": 1}

# numpy dtype of host data of each type (bf16 from ml_dtypes).
NUMPY_TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
               "i8": np.int8, "i32": np.int32}
