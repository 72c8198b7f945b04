"""The module's rules, apart from the bindings so that plain Python tests them."""


def calls_after(stored: bytes | None) -> int:
    """The calls counted so far, from the store's value (None: no call yet)."""
    try:
        return int(stored or b"0") + 1
    except ValueError:
        return 1
