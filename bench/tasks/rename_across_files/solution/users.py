"""The user directory."""

USERS = {1: {"name": "ada", "admin": True}, 2: {"name": "grace", "admin": False}}


def get_user(user_id: int) -> dict:
    """The user with this id."""
    return USERS[user_id]
