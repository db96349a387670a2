"""Named pipelines and the textual pipeline runner."""


def registered_passes():
    """Every pass and named pipeline that a textual pipeline or accel-opt can name.
    Imported on first use: the pipelines import the passes, which import most of accel."""
    from accel.passes.registry import load_all
    import accel.pipelines.kernel  # noqa: F401  (registers accel-kernel-pipeline)
    return load_all()
