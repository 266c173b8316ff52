"""Commands: the `/name` mechanism, its context, and the built-in commands."""
