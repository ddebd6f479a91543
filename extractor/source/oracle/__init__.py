"""The python-oracledb code that talks to a real Oracle (and, unchanged, to the simulator)."""
