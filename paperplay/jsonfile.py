"""Reads JSON input files and checks them against the shipped schemas, with messages people can act on."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from paperplay.errors import InputError
from paperplay.resources import load_schema


def read_json(path: Path) -> Any:
    """Reads a JSON file; a missing, unreadable or malformed file is an InputError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text; expected a JSON file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def _where(error: Any) -> str:
    parts: list[str] = []
    for part in error.absolute_path:
        parts.append(f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part)))
    return "".join(parts) or "the top level"


def _describe(error: Any) -> str:
    """Turns one jsonschema error into 'field …: found …; expected …'."""
    where = _where(error)
    instance = error.instance
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
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
        return f"field {where} has {len(instance)} entries; expected {description or error.message}"
    if error.validator in ("maxContains", "minContains", "contains"):
        return f"field {where} has {sum(1 for x in instance if x == '*')} wilds; expected at most one wild (\"*\")"
    if error.validator == "type" and where == "the top level":
        return f"the file holds a JSON {type(instance).__name__}; expected an object with a \"game\" field"
    found = json.dumps(instance, ensure_ascii=False)
    if len(found) > 60:
        found = found[:57] + "..."
    return f"field {where} is {found}; expected {description or error.message}"


@cache
def _registry() -> Any:
    """All shipped schemas by their $id, so one schema can $ref another without any network access."""
    from referencing import Registry, Resource

    from paperplay.resources import schema_names

    schemas = [load_schema(n) for n in schema_names()]
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)


@cache
def _validator(schema_name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(schema_name), registry=_registry())


def validate(instance: Any, schema_name: str, source: str) -> None:
    """Checks instance against a shipped schema; raises an InputError naming the source and field."""
    _check(_validator(schema_name), instance, source)


def validate_schema(instance: Any, schema: dict[str, Any], source: str) -> None:
    """Checks instance against a schema built at run time (a shipped one with other bounds, say)."""
    from jsonschema import Draft202012Validator

    _check(Draft202012Validator(schema, registry=_registry()), instance, source)


def _check(validator: Any, instance: Any, source: str) -> None:
    errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    # The first error in field order, reported where it happened (a oneOf failure at the item,
    # with the item's own description, not deep inside one of its alternatives).
    raise InputError(f"{source}: {_describe(errors[0])}")
