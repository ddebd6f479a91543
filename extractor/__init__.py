"""oracdc: change data capture from Oracle LogMiner into Spark, consolidated by dbt.

Data flow (one package per step):

    source/     where change rows come from: real Oracle, the simulator, replay bundles
    parse/      SQL_REDO text -> (operation, table, new values, old values), typed values
    (assemble/) LogMiner rows -> committed transactions, in commit order
    (land/)     change rows -> Spark staging tables `<schema>__<table>_log`
    sim/        the simulated Oracle database used by the tests and the demo

Records shared by these steps live in `dictionary.py`, `nls.py` and `logminer_row.py`.
"""

__version__ = "0.1.0"
