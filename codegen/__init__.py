"""Codegen helpers for accel-gemm-to-gpu: the Kernel IR that a GEMM lowers to."""
