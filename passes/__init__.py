"""Passes, one per file, each an `AccelPass` registered under an `accel-...` name."""
