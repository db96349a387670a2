"""Named pipelines and the textual pipeline runner."""
