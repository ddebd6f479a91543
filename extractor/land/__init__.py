"""Landing: the Spark session, staging tables, checkpoints, and dbt runs in-process."""
