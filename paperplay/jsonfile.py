"""Reads JSON input files and checks them against the shipped schemas, with messages people can act on."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from paperplay.errors import InputError
from paperplay.messages import shorten
from paperplay.resources import load_schema


MAX_BYTES = 4_000_000  # the largest input file read (a whole Streetcar game log is about 20 KB)
MAX_DEPTH = 24  # nesting of arrays and objects (the formats need at most 6)
MAX_DIGITS = 30  # digits in an integer literal (no field needs more than a few)
MAX_VALUES = 20_000
"""The most values (numbers, strings, arrays, objects...) a file may hold: ten times a six-player
Streetcar game's log (about 1,900). Checking a file against its schema takes up to 0.1 ms a value."""


class _Refused(ValueError):
    """A JSON literal paperplay will not read: too many digits, NaN or Infinity, a field given twice."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-')):,} digits; expected at most {MAX_DIGITS}")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {shorten(text, 40)}, too large to be read; expected a finite number")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose every field appears once (with two, JSON readers disagree on which counts)."""
    found = dict(pairs)
    if len(found) < len(pairs):  # a field given twice: name the first one
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the field {shorten(key, 40)!r} twice in one object; expected each field once")
            seen.add(key)
    return found


def _parse_constant(text: str) -> float:
    raise _Refused(f"{text}, which is not a JSON number; expected a finite number")


def _size(value: Any) -> tuple[int, int]:
    """The nesting depth of a parsed document (0 for a scalar) and how many values it holds, level by
    level without recursion; the walk stops below MAX_DEPTH."""
    deepest, count, level, depth = 0, 0, [value], 0
    while level and depth <= MAX_DEPTH:
        depth += 1
        count += len(level)
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                below.extend(item.values())
            elif isinstance(item, list):
                below.extend(item)
            else:
                continue
            deepest = depth
        level = below
    return deepest, count


def _largest(value: Any) -> tuple[str, int]:
    """The path of the longest array or object in a document ("" for the document itself) and its
    number of entries."""
    best, level = ("", len(value) if isinstance(value, (list, dict)) else 0), [(value, "")]
    while level:
        below = []
        for item, path in level:
            if len(item) > best[1]:
                best = (path, len(item))
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if child and isinstance(child, (list, dict)):
                    below.append((child, f"{path}[{key}]" if isinstance(key, int) else
                                  (f"{path}.{key}" if path else str(key))))
        level = below
    return best


def parse_json(text: str, source: str) -> Any:
    """Parses JSON text within paperplay's bounds; anything else is an InputError naming the source.
    A leading byte-order mark (as some editors write) is skipped."""
    text = text.removeprefix("\ufeff")
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant,
                          object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except _Refused as exc:
        raise InputError(f"{source}: holds {exc}") from None
    except RecursionError:
        raise InputError(f"{source}: is nested too deeply; expected at most {MAX_DEPTH} levels of arrays "
                         "and objects") from None
    depth, count = _size(data)
    if depth > MAX_DEPTH:
        raise InputError(f"{source}: is nested too deeply; expected at most {MAX_DEPTH} levels of arrays and objects")
    if count > MAX_VALUES:
        path, entries = _largest(data)
        where = f"field {path}" if path else "the top level"
        raise InputError(f"{source}: holds {count:,} values ({where} has {entries:,} entries); expected at most "
                         f"{MAX_VALUES:,} in a paperplay file")
    return data


def read_json(path: Path, max_bytes: int = MAX_BYTES) -> Any:
    """Reads a JSON file; a missing, unreadable, oversized or malformed file is an InputError naming it.

    Only regular files are read (not folders, devices or pipes), at most max_bytes of them.
    """
    try:
        if not path.is_file():
            if path.exists():
                what = "a folder" if path.is_dir() else "not a regular file"
                raise InputError(f"{path}: is {what}; expected a JSON file")
            raise InputError(f"{path}: no such file")
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except (ValueError, UnicodeError):  # a NUL or an unencodable character in the path
        raise InputError(f"{path!r}: is not a usable file name") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(raw) > max_bytes:
        raise InputError(f"{path}: is larger than {max_bytes:,} bytes; expected a paperplay JSON file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text; expected a JSON file") from None
    return parse_json(text, str(path))


def _where(error: Any) -> str:
    parts: list[str] = []
    for part in error.absolute_path:
        parts.append(f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part)))
    return "".join(parts) or "the top level"


_TYPE_NAMES = {"integer": "an integer", "number": "a number", "string": "a string", "array": "an array",
               "object": "an object", "boolean": "true or false", "null": "null"}


def not_an_object(value: Any, field: str = "game") -> str:
    """What a file holding `value` instead of an object holds, in JSON's words: "the file holds a JSON
    array; expected an object with a "game" field" (`field`: the object's first required field)."""
    kind = ("null" if value is None else json.dumps(value) if isinstance(value, bool) else
            "a JSON number" if isinstance(value, (int, float)) else "a JSON string" if isinstance(value, str) else
            "a JSON array" if isinstance(value, list) else "a JSON object")
    return f'the file holds {kind}; expected an object with a "{field}" field'


_BOUNDS = {"maximum": "at most", "minimum": "at least", "exclusiveMaximum": "less than",
           "exclusiveMinimum": "more than"}


def _describe(error: Any) -> str:
    """Turns one jsonschema error into 'field …: found …; expected …'."""
    where = _where(error)
    instance = error.instance
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if "propertyNames" in error.schema_path:  # a field's name, not its value (the path ends at the object)
        name = shorten(json.dumps(instance, ensure_ascii=False), 60)
        return f"field {where} has a field named {name}; expected {description or error.message}"
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extra = sorted(set(instance) - set(known))
        field = extra[0] if extra else "?"
        scope = "" if where == "the top level" else f" in {where}"
        return f"unknown field {field!r}{scope}; known fields: {', '.join(known)}"
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        scope = "" if where == "the top level" else f" in {where}"
        return f"missing field {missing!r}{scope}"
    if error.validator in ("minItems", "maxItems"):
        return (f"field {where} has {len(instance)} entr{'y' if len(instance) == 1 else 'ies'}; "
                f"expected {description or error.message}")
    if error.validator == "uniqueItems" and isinstance(instance, list):
        twice = json.dumps(_first_repeat(instance), ensure_ascii=False)
        return f"field {where} lists {twice} twice; expected {description or 'each value once'}"
    if error.validator in ("maxContains", "minContains", "contains"):
        return f"field {where} has {sum(1 for x in instance if x == '*')} wilds; expected at most one wild (\"*\")"
    if error.validator == "type" and where == "the top level":  # a variant file's first field is "variant"
        return not_an_object(instance, (error.schema.get("required") or ["game"])[0])
    if error.validator == "type" and not description:
        kinds = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        description = " or ".join(_TYPE_NAMES.get(k, str(k)) for k in kinds)
    if not description and error.validator in _BOUNDS:  # jsonschema's own words repeat the value
        description = f"{_BOUNDS[error.validator]} {error.validator_value}"
    found = json.dumps(instance, ensure_ascii=False)
    if len(found) > 60:
        found = found[:57] + "..."
    return f"field {where} is {found}; expected {description or error.message}"


def _first_repeat(items: list[Any]) -> Any:
    """The first item equal to one before it (JSON values: lists and objects compared by content)."""
    seen: set[str] = set()
    for item in items:
        key = json.dumps(_same_number(item), sort_keys=True)
        if key in seen:
            return item
        seen.add(key)
    return None


def _same_number(value: Any) -> Any:
    """The value with whole-number floats as integers, as JSON Schema compares them (7.0 is 7)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_same_number(v) for v in value]
    if isinstance(value, dict):
        return {k: _same_number(v) for k, v in value.items()}
    return value


@cache
def _registry() -> Any:
    """All shipped schemas by their $id, so one schema can $ref another without any network access."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    from paperplay.resources import schema_names

    schemas = [_without_dialect(load_schema(n)) for n in schema_names()]
    return Registry().with_resources((s["$id"], DRAFT202012.create_resource(s)) for s in schemas)


def _without_dialect(schema: dict[str, Any]) -> dict[str, Any]:
    # A schema naming its "$schema" would be checked by jsonschema's own validator class when
    # reached through a $ref, not by paperplay's stricter one; every shipped schema is 2020-12.
    return {k: v for k, v in schema.items() if k != "$schema"}


UNIQUE_DIRECT = 1000
"""Lists longer than this are checked for repeated items by their JSON texts (linear), not by jsonschema's
pairwise comparison."""


@cache
def _strict() -> Any:
    """Draft 2020-12 as paperplay checks it. JSON Schema counts 7.0 as an integer and as equal to 7 in
    enum and const; paperplay's fields index lists and squares with them, so a whole-number float is
    refused like any other non-integer."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    enum, const = Draft202012Validator.VALIDATORS["enum"], Draft202012Validator.VALIDATORS["const"]

    def strict_enum(validator: Any, enums: Any, instance: Any, schema: Any) -> Any:
        if isinstance(instance, float) and not any(isinstance(e, float) for e in enums):
            yield ValidationError(f"{instance!r} is not one of {enums!r}")
        else:
            yield from enum(validator, enums, instance, schema)

    def strict_const(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        if isinstance(instance, float) and not isinstance(value, float):
            yield ValidationError(f"{value!r} was expected")
        else:
            yield from const(validator, value, instance, schema)

    unique = Draft202012Validator.VALIDATORS["uniqueItems"]

    def bounded_unique(validator: Any, on: Any, instance: Any, schema: Any) -> Any:
        # jsonschema compares every item with every other when they cannot be sorted (mixed types,
        # objects): minutes for a long list. A list already longer than maxItems fails that instead.
        limit = schema.get("maxItems")
        if isinstance(instance, list) and isinstance(limit, int) and len(instance) > limit:
            return
        if isinstance(instance, list) and len(instance) > UNIQUE_DIRECT:
            try:
                keys = [json.dumps(item, sort_keys=True) for item in instance]
            except (TypeError, ValueError):  # not JSON's own values: jsonschema's comparison
                keys = None
            if keys is not None:
                if on and len(set(keys)) != len(keys):
                    yield ValidationError("the list has non-unique elements")
                return
        yield from unique(validator, on, instance, schema)

    return validators.extend(Draft202012Validator, {"enum": strict_enum, "const": strict_const,
                                                    "uniqueItems": bounded_unique},
                             type_checker=checker)


@cache
def _validator(schema_name: str) -> Any:
    return _strict()(_without_dialect(load_schema(schema_name)), registry=_registry())


def validate(instance: Any, schema_name: str, source: str) -> None:
    """Checks instance against a shipped schema; raises an InputError naming the source and field."""
    _check(_validator(schema_name), instance, source)


def validate_schema(instance: Any, schema: dict[str, Any], source: str) -> None:
    """Checks instance against a schema built at run time (a shipped one with other bounds, say), as
    strictly as a shipped one (see _strict)."""
    _check(_strict()(_without_dialect(schema), registry=_registry()), instance, source)


def _field_order(error: Any) -> list[tuple[int, int, str]]:
    """Fields in the file's order: list items by index (2 before 10), and a list's repeated item after
    its items' own errors."""
    key = [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path]
    return key + ([(2, 0, "")] if error.validator == "uniqueItems" else [])


def _check(validator: Any, instance: Any, source: str) -> None:
    # a list's repeated item after its items' own errors (7.0 in [7.0, 7] is the fault, not the repeat)
    errors = sorted(validator.iter_errors(instance), key=_field_order)
    if not errors:
        return
    # The first error in field order, reported where it happened: a oneOf failure at the item, with the
    # item's own description, not deep inside one of its alternatives (but see _inside).
    raise InputError(f"{source}: {_describe(_inside(errors[0]))}")


def _inside(error: Any) -> Any:
    """For an object or array that fits none of a oneOf's alternatives but is of one alternative's
    type (an inline board with no terminals, say), that alternative's first error in field order:
    it says what is wrong, where the oneOf's own description says only what may go there."""
    while error.validator in ("oneOf", "anyOf") and isinstance(error.instance, (dict, list)) and error.context:
        # the alternatives of the instance's type: those that fail for more than the type at the top
        inner = [e for e in error.context if e.relative_path or e.validator != "type"]
        if len({e.relative_schema_path[0] for e in inner}) != 1:
            break
        error = min(inner, key=_field_order)
    return error
