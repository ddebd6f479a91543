"""oracdc: change data capture from Oracle LogMiner into Spark, consolidated by dbt.

Data flow (one package per step, in order):

    source/     where change rows come from: real Oracle (``oracle/``), replay bundles
                (``replay/``); one ``Source`` protocol
    assemble/   LogMiner rows -> committed transactions, in commit order (CSF chains,
                rollbacks, spilling)
    parse/      SQL_REDO text -> typed values; ``change_builder``: a committed transaction's
                rows -> change records per table
    land/       change records and snapshot batches -> Spark staging tables
                ``<schema>.<owner>__<table>_log`` and the audit tables
    state/      what survives a restart: checkpoint, run statistics, consolidation record
    pipeline/   the loop that runs the steps: snapshot, mine windows, land, checkpoint; one
                sync cycle (extract, then dbt for what changed)
    lakehouse/  the Spark session and dbt run in-process on it
    dbt_gen/    the dbt models, sources and tests generated per replicated table
    verify/     replicas compared with the source at one SCN
    cli/        the ``oracdc`` commands
    sim/        the simulated Oracle database used by the tests and the demo

Records and rules shared by these steps are modules at this level: ``logminer_row``
(V$LOGMNR_CONTENTS rows, operation codes), ``redo_position`` (redo and commit positions),
``dictionary`` (tables and columns), ``change_record``, ``staging_contract`` (staging table
names and metadata columns), ``keys``, ``spark_types``, ``values``, ``nls``, ``config``,
``errors``, ``atomic_file``, ``notify``, ``demo``.
"""

__version__ = "0.1.0"
