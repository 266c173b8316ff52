"""A one-line report of the admins."""

from users import USERS, get_usr


def summary() -> str:
    """The names of the admins, comma-separated."""
    return ", ".join(get_usr(i)["name"] for i in sorted(USERS) if get_usr(i)["admin"])
