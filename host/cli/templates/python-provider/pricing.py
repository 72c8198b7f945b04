"""The provider's rules, apart from the bindings so that plain Python tests them."""

import math

# Price per service: a description, a base and a price per started kilogram, in COP.
SERVICES = {
    "same_day": ("Same day", 9_000.0, 1_500.0),
    "next_day": ("Next day", 6_000.0, 1_000.0),
}


def price(weight: float, base: float, per_kg: float) -> float:
    """Every started kilogram is charged whole, one at least."""
    return base + per_kg * max(1, math.ceil(weight))
