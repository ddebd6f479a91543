"""What the extractor remembers between runs, each file written atomically under the data
directory: the checkpoint, the run statistics and the consolidation record."""
