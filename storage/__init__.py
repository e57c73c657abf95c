"""Runs on disk, beneath both the analysis and the commands: run directories and their manifests
(run_dir), the parts a run is written in and their integrity records (run_parts), the lock that keeps
one writer per directory (run_lock), and the parallel backends every by-chunks job runs on (backends:
joblib's loky and Dask). Nothing here knows a game or a figure.
"""
