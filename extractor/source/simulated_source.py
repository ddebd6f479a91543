"""The Oracle source code on a simulated database (``kind: sim``), read through its DB-API
face (``extractor.sim.dbapi``); with a data directory, the database is the one saved there
(``extractor.sim.saved_simulation``) and its workload goes on between sync cycles."""

from __future__ import annotations

from typing import Any

from extractor.sim.database import SimDatabase
from extractor.sim.dbapi import SimConnection
from extractor.sim.saved_simulation import SavedSimulation
from extractor.source.oracle.oracle_source import OracleSource, open_oracle_source


class SimulatedSource(OracleSource):
    """An :class:`OracleSource` on ``database``; ``simulation`` when it is a saved one."""

    def __init__(
        self, connection: Any, *, simulation: SavedSimulation | None = None, **options: Any
    ) -> None:
        self.simulation = simulation
        super().__init__(connection, **options)

    def advance_workload(self) -> int:
        """Run the saved database's workload for one cycle (``WorkloadBetweenCycles``);
        returns the transactions run (0 for a database the caller drives itself)."""
        return 0 if self.simulation is None else self.simulation.advance()

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.simulation is not None:
                self.simulation.close()


def open_simulated_source(
    database: SimDatabase, *, pdb: str | None = None, simulation: SavedSimulation | None = None
) -> SimulatedSource:
    source = open_oracle_source(
        lambda: SimConnection(database),
        pdb=pdb,
        source_class=SimulatedSource,
        simulation=simulation,
        nls=database.nls,
    )
    assert isinstance(source, SimulatedSource)
    return source
