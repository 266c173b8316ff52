"""Splitting a list into pages for the listing views."""


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill, `per_page` at a time."""
    return -(-total // per_page)


def paginate(items: list, page: int, per_page: int) -> list:
    """The items on `page` (numbered from 1), `per_page` at a time."""
    start = page * per_page
    return items[start : start + per_page]
