"""Batch analysis: inputs read into tasks, run inline, on a pool or on Dask, written as records."""
