"""The config's edge: the YAML files read strictly, the JSON schema, and one short message per mistake.

:func:`validate` runs before :func:`attnrepro.run.config.check` (the cross-field rules). It stops on

- a key written twice in one mapping of a config file (YAML keeps the last copy without a word);
- a YAML alias inside the block it names (``&r [*r]``), or aliases that expand past :data:`MAX_NODES` values;
- a number that is NaN or ±inf anywhere (``.nan`` passes every JSON-schema bound: a NaN comparison is never true,
  so ``exclusiveMinimum: 0`` cannot catch it);
- anything the schema (``workflow/schemas/config.schema.yaml``) rejects: unknown or missing keys, wrong types,
  values out of bounds, names that would make bad paths or wildcards.

A float written as YAML 1.2 has it (``6e3``, ``6.0e3``, ``1e-3``), which PyYAML and so Snakemake keep as a string,
is read as the number (:class:`Loader`). Each message is one line naming the key and what is allowed there. ``ATTNREPRO_CONFIG_SCHEMA=1`` in the
environment adds the schema of that key and the offending value (what Snakemake's own ``validate`` prints).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, Iterable

import yaml

from ..errors import AttnReproError

FULL_SCHEMA_ENV = "ATTNREPRO_CONFIG_SCHEMA"
_MORE = f"(set {FULL_SCHEMA_ENV}=1 to see the schema of this key)"


class Loader(yaml.SafeLoader):
    """YAML's SafeLoader that also reads the floats of YAML 1.2 which PyYAML (YAML 1.1) keeps as strings: an
    exponent without a dot or without a sign (``6e3``, ``6.0e3``, ``1e-3``)."""


# only forms that no other resolver claims: an exponent is required, so ints and "1.5" resolve as before
YAML12_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
Loader.add_implicit_resolver("tag:yaml.org,2002:float", YAML12_FLOAT, list("-+0123456789"))


def validate(config: dict[str, Any], schema_path: str | Path, files: Iterable[str | Path] = (),
             overrides: Any = None) -> None:
    """Strict YAML of ``files`` (the config files the run read), typed ``--config`` values (``overrides``),
    finite numbers, whole numbers as ints, then the schema."""
    for path in files:
        for where, text in check_duplicate_keys(path):
            _retype(config, where, text)
    retype_overrides(config, dict(overrides or {}))
    check_finite(config)
    schema = load_schema(schema_path)
    whole_numbers(config, schema)
    check_schema(config, schema)


# -- command-line overrides -----------------------------------------------------------------------------------
def retype_overrides(config: dict[str, Any], overrides: Any, where: tuple = ()) -> None:
    """``snakemake --config 'train={lr: 0.001}'`` is merged into the config, but Snakemake reads the block with
    YAML's BaseLoader, which keeps every value a string ('0.001'); each such string of ``overrides`` (Snakemake's
    ``--config`` entries) is read again as a typed YAML scalar where it landed in ``config``."""
    if isinstance(overrides, dict):
        for k, v in overrides.items():
            retype_overrides(config, v, (*where, k))
    elif isinstance(overrides, list):
        for i, v in enumerate(overrides):
            retype_overrides(config, v, (*where, i))
    elif isinstance(overrides, str) and len(where) > 1:  # a top-level value was typed by Snakemake already
        node = config
        for part in where[:-1]:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return
        try:
            if node[where[-1]] != overrides:
                return
            value = yaml.load(overrides, Loader=Loader)
        except (KeyError, IndexError, TypeError, yaml.YAMLError):
            return
        if value is None or isinstance(value, (bool, int, float)):
            node[where[-1]] = value


# -- whole numbers written as floats ------------------------------------------------------------------------
def whole_numbers(config: dict[str, Any], schema: dict[str, Any]) -> None:
    """Every integer key given as a whole float (``40.0``, ``6.0e3``, ``seeds: [0.0, 1.0]``) becomes that int, so
    later steps see the type the schema promises; a fraction (``40.5``) is left for the schema to reject."""
    from jsonschema import Draft202012Validator, validators

    strict_types = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, v: isinstance(v, int) and not isinstance(v, bool))
    strict = validators.extend(Draft202012Validator, type_checker=strict_types)(schema)

    def walk(errors):
        for error in errors:
            types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
            inst = error.instance
            if (error.validator == "type" and "integer" in types and isinstance(inst, float) and inst.is_integer()
                    and error.absolute_path):
                *parents, last = error.absolute_path
                node = config
                for part in parents:
                    node = node[part]
                node[last] = int(inst)
            walk(error.context or ())

    walk(strict.iter_errors(config))


def load_schema(path: str | Path) -> dict[str, Any]:
    return yaml.safe_load(Path(path).read_text())


# -- duplicate keys, aliases, YAML 1.2 floats --------------------------------------------------------------
def check_duplicate_keys(path: str | Path) -> list[tuple[tuple, str]]:
    """Raise if a mapping of the YAML file ``path`` holds a key twice (naming its dotted path and both lines), if
    an alias contains itself (``&r [*r]``) or if its aliases expand past :data:`MAX_NODES`; return where the file
    writes a float that Snakemake's loader keeps as a string (``6.0e3``: see :class:`Loader`), with its text."""
    path = Path(path)
    if path.is_dir():
        raise AttnReproError(f"{path}: a folder, not a config file (--configfile takes a YAML file)")
    try:
        root = yaml.compose(path.read_text(), Loader=Loader)
    except OSError as err:
        raise AttnReproError(f"{path}: config file not readable ({err})") from err
    except yaml.YAMLError as err:
        raise AttnReproError(f"{path}: not valid YAML ({err})".replace("\n", " ")) from err
    floats: list[tuple[tuple, str]] = []
    _walk_nodes(root, (), path, [MAX_NODES], set(), floats)
    return floats


MAX_NODES = 200_000  # YAML nodes of a config with its aliases expanded (config/paper.yaml has a few thousand)


def _dotted(where: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(where))


def _walk_nodes(node, where: tuple, path: Path, budget: list[int], inside: set[int], floats: list) -> None:
    budget[0] -= 1
    if budget[0] < 0:  # a few nested aliases (&a [*b, *b, ...]) expand to billions of nodes: stop before that
        raise AttnReproError(f"{path}: the config expands to more than {MAX_NODES:,} values through YAML aliases "
                             f"(*name) — write it out, or use fewer nested aliases")
    if id(node) in inside:  # an alias inside its own anchor's block: the value would contain itself forever
        raise AttnReproError(f"{path}:{node.start_mark.line + 1}: config key '{_dotted(where)}' is a YAML alias "
                             f"(*name) of a block that contains it (like &r [*r]) — a config value cannot contain "
                             f"itself; write the value out")
    if isinstance(node, yaml.ScalarNode):
        if node.style is None and YAML12_FLOAT.match(node.value):  # plain, so Loader resolved it as a float
            floats.append((where, node.value))
        return
    inside.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            line = key_node.start_mark.line + 1
            if key is not None and key != "<<":
                if key in seen:
                    raise AttnReproError(
                        f"{path}:{line}: config key '{_dotted((*where, key))}' appears twice (first on line "
                        f"{seen[key]}); YAML would silently keep only the last copy — delete or rename one")
                seen[key] = line
            _walk_nodes(value_node, where if key == "<<" else (*where, key), path, budget, inside, floats)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk_nodes(item, (*where, i), path, budget, inside, floats)
    inside.discard(id(node))


def _retype(config: dict[str, Any], where: tuple, text: str) -> None:
    """Make the float ``text`` that a config file wrote at ``where`` a float in ``config``, if the string Snakemake
    read is still there (a later file or ``--config`` may have replaced it)."""
    node: Any = config
    for part in where[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return
    if where and isinstance(node, (dict, list)):
        try:
            current = node[where[-1]]
        except (KeyError, IndexError, TypeError):
            return
        if current == text:
            node[where[-1]] = float(text.replace("_", ""))


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
        hint = ""
        if isinstance(inst, str) and ("a mapping" in kinds or "a list" in kinds):
            hint = f" (to change one key inside it from the command line: --config {key}.KEY=VALUE)"
        return f"config key '{key}': {_short(inst)} is not {' or '.join(kinds)}{hint}"
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
