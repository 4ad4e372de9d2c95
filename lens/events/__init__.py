"""Event files: record framing, writers, summary ops, readers, the per-run store and the board's data provider."""
