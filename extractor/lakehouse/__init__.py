"""Where the replicas live: the Spark session and dbt run in-process on it."""
