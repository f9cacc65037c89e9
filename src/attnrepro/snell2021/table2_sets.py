"""Which Table 2 sets a ``snell2021:`` block names and where their data comes from: the classification sets (offline
sources split by their own block, or prepared corpora) and the translation sets, with the row labels of Table 2 and
Fig. 2 (:mod:`.config` re-exports these names for the rules); imports nothing heavy."""

from __future__ import annotations

from typing import Any

from ..io import results_dir as root


def classification_sets(block: dict[str, Any]) -> list[str]:
    return list(block.get("classification", {}).get("sets", {}))


def classification_data(block: dict[str, Any], name: str) -> dict[str, Any]:
    """An offline set (``text.SOURCES``) is split by its own block; any other set is a classification corpus
    prepared into ``results/data/<name>/`` (its own train/test splits and vocabulary)."""
    from .classification_sets import SOURCES

    data = {"task": "classification", "name": name, **{k: v for k, v in block["classification"]["sets"][name].items()
                                                          if k != "proxy_train"},
            **({"bos_eos": True} if block["classification"].get("bos_eos") else {})}
    if name not in SOURCES:
        data["data_dir"] = prepared_dir(name)
    return data


def prepared_dir(name: str) -> str:
    return f"{root()}/data/{name}"


# Table 2 / Fig. 2 row names of the translation sets we can prepare (others: "<name> (translation)")
TRANSLATION_LABELS = {"bible": "Bible verses EN→FR (translation)", "multi30k": "Multi30k DE→EN (translation)",
                      "iwslt14": "IWSLT14 DE→EN (translation)"}


def translation_label(name: str) -> str:
    return TRANSLATION_LABELS.get(name, f"{name} (translation)")


def translation_sets(block: dict[str, Any]) -> list[str]:
    """Prepared data sets (``results/data/<name>/``: a task of the config's ``tasks`` or a ``corpora`` entry)."""
    return list(block.get("translation", {}).get("sets", {}))
