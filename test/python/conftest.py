"""Every test, and every tool a test starts, uses a kernel cache of its own in a
temporary directory: the suite never reads or fills the user's (~/.cache/accel)."""

import atexit
import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="accel-test-cache-")
os.environ["ACCEL_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
