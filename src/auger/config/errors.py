"""The error for a user's configuration or usage mistake (exit code 2)."""


class ConfigError(Exception):
    """A one-line, user-facing reason: what is wrong and how to fix it."""


class MissingKey(ConfigError):
    """A provider that needs an API key has none."""
