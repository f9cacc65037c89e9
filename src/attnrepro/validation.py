"""The config's edge: the YAML files read strictly, the JSON schema, and one short message per mistake.

:func:`validate` runs before :func:`attnrepro.config.check` (the cross-field rules). It stops on

- a key written twice in one mapping of a config file (YAML keeps the last copy without a word);
- a number that is NaN or ±inf anywhere (``.nan`` passes every JSON-schema bound: a NaN comparison is never true,
  so ``exclusiveMinimum: 0`` cannot catch it);
- anything the schema (``workflow/schemas/config.schema.yaml``) rejects: unknown or missing keys, wrong types,
  values out of bounds, names that would make bad paths or wildcards.

Each message is one line naming the key and what is allowed there. ``ATTNREPRO_CONFIG_SCHEMA=1`` in the
environment adds the schema of that key and the offending value (what Snakemake's own ``validate`` prints).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Iterable

import yaml

from .errors import AttnReproError

FULL_SCHEMA_ENV = "ATTNREPRO_CONFIG_SCHEMA"
_MORE = f"(set {FULL_SCHEMA_ENV}=1 to see the schema of this key)"


def validate(config: dict[str, Any], schema_path: str | Path, files: Iterable[str | Path] = ()) -> None:
    """Strict YAML of ``files`` (the config files the run read), finite numbers, then the schema."""
    for path in files:
        check_duplicate_keys(path)
    check_finite(config)
    check_schema(config, load_schema(schema_path))


def load_schema(path: str | Path) -> dict[str, Any]:
    return yaml.safe_load(Path(path).read_text())


# -- duplicate keys -----------------------------------------------------------------------------------------
def check_duplicate_keys(path: str | Path) -> None:
    """Raise if a mapping of the YAML file ``path`` holds a key twice, naming its dotted path and both lines."""
    path = Path(path)
    try:
        root = yaml.compose(path.read_text(), Loader=yaml.SafeLoader)
    except OSError as err:
        raise AttnReproError(f"{path}: config file not readable ({err})") from err
    except yaml.YAMLError as err:
        raise AttnReproError(f"{path}: not valid YAML ({err})".replace("\n", " ")) from err
    _walk_nodes(root, "", path)


def _walk_nodes(node, where: str, path: Path) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            line = key_node.start_mark.line + 1
            dotted = f"{where}.{key}" if where else str(key)
            if key is not None and key != "<<":
                if key in seen:
                    raise AttnReproError(
                        f"{path}:{line}: config key '{dotted}' appears twice (first on line {seen[key]}); YAML "
                        f"would silently keep only the last copy — delete or rename one")
                seen[key] = line
            _walk_nodes(value_node, dotted, path)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk_nodes(item, f"{where}[{i}]", path)


# -- non-finite numbers -------------------------------------------------------------------------------------
def check_finite(value: Any, where: str = "") -> None:
    """Raise on the first NaN or ±inf in a nested dict/list, naming its key."""
    if isinstance(value, float) and not math.isfinite(value):
        raise AttnReproError(f"config key '{where}': {value} is not a finite number; every number of the config "
                             f"must be finite")
    if isinstance(value, dict):
        for k, v in value.items():
            check_finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_finite(v, f"{where}[{i}]")


# -- the schema, one line per mistake -----------------------------------------------------------------------
def check_schema(config: dict[str, Any], schema: dict[str, Any]) -> None:
    """Validate ``config`` and, as Snakemake's ``validate`` did, fill in the schema's ``default`` values (so a job's
    parameters are the same whichever way the config was checked)."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match

    properties = Draft202012Validator.VALIDATORS["properties"]

    def with_defaults(validator, props, instance, subschema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(name, sub["default"])
        yield from properties(validator, props, instance, subschema)

    validator = validators.extend(Draft202012Validator, {"properties": with_defaults})(schema)
    error = best_match(validator.iter_errors(config))
    if error is None:
        return
    message = f"{describe(error)} {_MORE}"
    if os.environ.get(FULL_SCHEMA_ENV):
        message += "\n" + str(error)
    raise AttnReproError(message)


def _key(path) -> str:
    parts = []
    for p in path:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _allowed_keys(schema: dict[str, Any]) -> list[str]:
    keys = list(schema.get("properties", {}))
    for sub in schema.get("allOf", []):
        keys += [k for k in sub.get("properties", {}) if k not in keys]
    return keys


_TYPES = {"integer": "an integer", "number": "a number", "string": "a string", "object": "a mapping",
          "array": "a list", "boolean": "true or false", "null": "null"}


def describe(error) -> str:
    """One line: the key, what is wrong with it, and what it may be."""
    key = _key(error.absolute_path)
    v, s, inst = error.validator, error.validator_value, error.instance
    if "propertyNames" in error.absolute_schema_path:
        return (f"config key '{key}': the name {_short(inst)} is not allowed; names become file paths, wildcards "
                f"and shell words: letters, digits, '_' and '-', starting with a letter or digit, at most 64 "
                f"characters")
    if v == "additionalProperties" and s is False:
        allowed = _allowed_keys(error.schema)
        extra = sorted(set(inst) - set(allowed))
        where = f"'{key}'" if error.absolute_path else "the top level"
        return (f"config key '{_key([*error.absolute_path, extra[0]]) if extra else key}' is not known; "
                f"{where} takes {', '.join(allowed)}")
    if v == "required":
        missing = [k for k in s if k not in inst]
        where = f"'{key}'" if error.absolute_path else "the config"
        return (f"config key '{_key([*error.absolute_path, missing[0]])}' is missing; {where} needs "
                f"{', '.join(s)}")
    if v == "enum":
        return f"config key '{key}': {_short(inst)} is not one of {', '.join(map(repr, s))}"
    if v == "const":
        return f"config key '{key}': {_short(inst)} must be {s!r}"
    if v == "type":
        kinds = [_TYPES.get(k, k) for k in (s if isinstance(s, list) else [s])]
        return f"config key '{key}': {_short(inst)} is not {' or '.join(kinds)}"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "above",
                 "exclusiveMaximum": "below"}[v]
        return f"config key '{key}': {_short(inst)} is out of range; it must be {bound} {s}"
    if v in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"):
        what = {"minItems": "at least {} item(s)", "maxItems": "at most {} item(s)",
                "minProperties": "at least {} entry", "maxProperties": "at most {} entries",
                "minLength": "at least {} character(s)", "maxLength": "at most {} character(s)"}[v].format(s)
        return f"config key '{key}': {_short(inst)} must have {what}"
    if v == "uniqueItems":
        return f"config key '{key}': {_short(inst)} repeats an item"
    if v == "pattern":
        return f"config key '{key}': {_short(inst)} does not match the pattern {s}"
    if v == "not" and isinstance(inst, dict):
        forbidden = [k for sub in s.get("anyOf", [s]) for k in sub.get("required", []) if k in inst]
        kind = f" with kind {inst['kind']!r}" if "kind" in inst else ""
        if forbidden:
            verb = "does" if len(forbidden) == 1 else "do"
            return f"config key '{key}': {', '.join(map(repr, forbidden))} {verb} not apply{kind}"
    return f"config key '{key}': {error.message[:200]}"
