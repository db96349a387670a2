"""Perf-config selection: validity rules, the cost model, the selector, measured facts."""

from accel.tuning.launch import Launch, geometry

__all__ = ["Launch", "geometry"]
