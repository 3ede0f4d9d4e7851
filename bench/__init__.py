"""Benchmarks: scripts run on purpose that print numbers (never part of the test suite)."""
