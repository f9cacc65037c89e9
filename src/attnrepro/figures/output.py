"""The atomic saver every figure goes through: PNG, and PDF without a creation date."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are drawn on login nodes and laptops with no display

from ..io import atomic_path  # noqa: E402


def save(fig, png: str | Path, pdf: str | Path | None = None, dpi: int = 150) -> None:
    import matplotlib.pyplot as plt

    with atomic_path(png) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight")
    if pdf is not None:
        with atomic_path(pdf) as tmp:
            # no creation date: two runs of the same results give the same bytes
            fig.savefig(tmp, format="pdf", bbox_inches="tight", metadata={"CreationDate": None})
    plt.close(fig)
