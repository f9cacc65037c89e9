"""Word names shared by the synthetic tasks."""

import string


def letters(n: int) -> list[str]:
    """``A, B, ..., Z, AA, AB, ...``: readable word names for any vocabulary size."""
    names, k = [], 0
    while len(names) < n:
        q, r = divmod(k, 26)
        names.append((string.ascii_uppercase[q - 1] if q else "") + string.ascii_uppercase[r])
        k += 1
    return names
