"""The extraction pipeline: snapshot and mine a source, build change rows, land, checkpoint."""
