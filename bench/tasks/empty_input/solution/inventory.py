"""Inventory statistics for the shop dashboard."""


def total_value(items: list[dict]) -> float:
    """The value of all stock: price times quantity, summed."""
    return sum(i["price"] * i["quantity"] for i in items)


def average_price(items: list[dict]) -> float:
    """The mean price of the items (0.0 for none)."""
    if not items:
        return 0.0
    return sum(i["price"] for i in items) / len(items)
