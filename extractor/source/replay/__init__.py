"""Replay bundles (``oracdc-replay/1``): read a recorded source as if it were live, record one."""
