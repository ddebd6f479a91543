"""A simulated Oracle database: versioned tables, transactions and LogMiner output.

See ``docs/simulator.md``. Entry points: :class:`extractor.sim.database.SimDatabase` and
:func:`extractor.sim.workload.run_workload`.
"""
