"""accel: a Python-driven MLIR compiler that turns a GEMM into AMD GPU code objects."""
