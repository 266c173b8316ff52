"""A one-line report of the admins."""

from users import USERS, get_user


def summary() -> str:
    """The names of the admins, comma-separated."""
    return ", ".join(get_user(i)["name"] for i in sorted(USERS) if get_user(i)["admin"])
