"""Sessions: the JSONL tree store, its entries, and the model context built from a branch."""
