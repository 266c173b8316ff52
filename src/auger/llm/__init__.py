"""The model layer: messages, records, usage, catalog and the provider wire formats."""
