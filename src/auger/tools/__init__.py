"""Tools: the protocol, schemas from type hints, responses, and the bundled coding tools."""
