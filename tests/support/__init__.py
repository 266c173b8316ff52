"""Test helpers shared across the suite."""
