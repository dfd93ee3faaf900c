"""Benchmarks (``make bench*``); each prints a table."""
