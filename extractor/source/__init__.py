"""Where change rows are born: a :class:`~extractor.source.base.Source` reads the Oracle
dictionary, consistent snapshots and LogMiner rows from a real Oracle (``oracle/``), the
simulated Oracle (through its DB-API face) or a replay bundle (``replay/``)."""
