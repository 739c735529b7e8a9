"""Builds the site's reference pages from paperplay itself (an MkDocs hook, named in mkdocs.yml).

- Commands: one page per command, walked from the click command tree of the typer app, so every
  command, argument and option on the site is the one `--help` shows (the page ends with that help).
- File formats: one page per JSON Schema in schemas/, its fields in a table, and an example from
  docs/examples/ (EXAMPLES says which; tests/test_docs.py checks each against its schema).

Nothing here is written to docs/: the pages exist only in the build. `python docs/hooks/reference.py
OUT` writes them to a folder, to read them without building the site.
"""

from __future__ import annotations

import html
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = "reference/commands"
FORMATS = "reference/formats"
EXAMPLES = {
    "streams-sheet": "ann.json",
    "streams-variant": "my-variant.json",
    "streetcar-state": "board.json",
    "streetcar-log": "tiny-game.json",
    "streetcar-board": "tiny-board.json",
    "streetcar-tiles": "streetcar-tiles.json",
    "streetcar-route-cards": "streetcar-route-cards.json",
    "sequence-position": "pos.json",
    "sequence-log": "sequence-game.json",
}
"""The example shown on each file format's page: a file of docs/examples/, valid against the schema."""
EXAMPLE_OF = {
    "streams-sheet": ["ann.json", "bob.json", "cy.json", "ann-placements.json"],
    "streetcar-log": ["tiny-game.json", "streetcar-game.json", "bad-game.json"],
    "sequence-position": ["pos.json", "pos-nine.json"],
}
"""Further files of docs/examples/ in each format (every file there is in one)."""
NOTES = {
    "streetcar-board": "A Streetcar board state or game log names a board file in its `board` field (a path "
                       "relative to that file), or holds the board there inline.",
    "streetcar-tiles": "paperplay's own tile data, `templates/streetcar/tiles.json`, is a file of this kind.",
    "streetcar-route-cards": "paperplay's own card data, `templates/streetcar/route-cards.json`, is a file of "
                             "this kind.",
}
"""What a format's page says of where its files are used, when no command reads them directly."""
HELP_WIDTH = 100


@cache
def _cli() -> Any:
    """The click group behind paperplay's typer app."""
    import typer

    from paperplay.cli.app import app

    return typer.main.get_command(app)


def _walk(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every command under the group, in --help's order, with its path of names (subgroups too)."""
    import click

    found: list[tuple[tuple[str, ...], Any]] = []
    context = click.Context(group, info_name="paperplay")
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        found.append(((*prefix, name), command))
        if isinstance(command, click.Group):
            found.extend(_walk(command, (*prefix, name)))
    return found


def _context(path: tuple[str, ...], command: Any) -> Any:
    """A click context for the command, as `paperplay PATH --help` makes it."""
    import click

    root = click.Context(_cli(), info_name="paperplay", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
    parent = root
    group = root.command
    for name in path[:-1]:
        group = group.get_command(parent, name)
        parent = click.Context(group, info_name=name, parent=parent)
    return click.Context(command, info_name=path[-1], parent=parent)


def command_pages() -> dict[str, tuple[str, str]]:
    """Commands' pages: {site path: (nav title, Markdown)}, the index first."""
    import click

    group = _cli()
    commands = _walk(group)
    rows = "\n".join(f"| [`paperplay {' '.join(path)}`]({'-'.join(path)}.md) | {_cell(c.get_short_help_str(90))} |"
                     for path, c in commands)
    root = click.Context(group, info_name="paperplay", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
    index = (
        "# Commands\n\n"
        "Every command of paperplay, with every argument and option. These pages are made from the "
        "command line itself when the site is built, so they always say what `--help` says.\n\n"
        "| Command | What it does |\n|---|---|\n" + rows + "\n\n"
        + _body(group.help or "")
        + "\n## `paperplay --help`\n\n```text\n" + group.get_help(root) + "\n```\n"
    )
    pages = {f"{COMMANDS}/index.md": ("Commands", index)}
    for path, command in commands:
        pages[f"{COMMANDS}/{'-'.join(path)}.md"] = (f"paperplay {' '.join(path)}", _command_page(path, command))
    return pages


def _command_page(path: tuple[str, ...], command: Any) -> str:
    context = _context(path, command)
    name = "paperplay " + " ".join(path)
    usage = " ".join([name, *command.collect_usage_pieces(context)])
    out = [f"# {name}\n", f"```text\n{usage}\n```\n", _body(command.help or "")]
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    if arguments:
        out.append("## Arguments\n\n| Argument | Description |\n|---|---|")
        for param in arguments:
            record = param.get_help_record(context)
            words, text = record if record else (param.human_readable_name, "")
            out.append(f"| `{words}` | {_cell(text)} |")
        out.append("")
    out.append("## Options\n\n| Option | Description |\n|---|---|")
    for param in options:
        record = param.get_help_record(context)
        if record:
            out.append(f"| `{record[0]}` | {_cell(record[1])} |")
    help_option = command.get_help_option(context)
    if help_option is not None:
        words, text = help_option.get_help_record(context)
        out.append(f"| `{words}` | {_cell(text)} |")
    out.append(f"\n## `{name} --help`\n\n```text\n{command.get_help(context)}\n```\n")
    return "\n".join(out)


def _body(text: str) -> str:
    """A command's help text as Markdown: paragraphs, and click's unwrapped blocks (\\b) as code."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        if paragraph.startswith("\b"):
            lines = [line.strip() for line in paragraph[1:].strip("\n").splitlines()]
            language = "sh" if all(line.startswith("paperplay") for line in lines if line) else "text"
            out.append(f"```{language}\n" + "\n".join(lines) + "\n```")
        elif re.fullmatch(r"Examples?:", paragraph.strip()):
            out.append(f"**{paragraph.strip()}**")
        else:
            out.append(_escape(" ".join(paragraph.split())))
    return "\n\n".join(out) + "\n"


def _escape(text: str) -> str:
    """Text shown as written (help texts hold <int>, *, _ and [...])."""
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", html.escape(text, quote=False))


def _cell(text: str) -> str:
    return _escape(" ".join(text.split()))


# File formats -------------------------------------------------------------------------------------

def format_pages() -> dict[str, tuple[str, str]]:
    """File formats' pages: {site path: (nav title, Markdown)}, the index first."""
    from paperplay.resources import load_schema, schema_names

    names = schema_names()
    rows = "\n".join(f"| [{load_schema(n)['title']}]({n}.md) | `{n}` | {_cell(load_schema(n)['description'])} |"
                     for n in names)
    index = (
        "# File formats\n\n"
        "paperplay reads JSON files: score sheets, board states, game logs, variants. Each kind has a JSON Schema, "
        "shipped with paperplay and printed by `paperplay schema NAME`; a file that does not follow it is refused "
        "with one line naming the file, the field and what was expected (exit code 2). These pages are made from "
        "the schemas when the site is built. Every example on them is a file of `docs/examples/`, checked against "
        "its schema by the tests.\n\n"
        "| Format | Schema | What it holds |\n|---|---|---|\n" + rows + "\n\n"
        "Files are read within bounds: see [Exit codes and errors](../exit-codes.md#input-files).\n"
    )
    pages = {f"{FORMATS}/index.md": ("File formats", index)}
    for name in names:
        pages[f"{FORMATS}/{name}.md"] = (load_schema(name)["title"], _format_page(name, load_schema(name)))
    return pages


def _readers(name: str, schema: dict[str, Any]) -> list[str]:
    """The commands that read files of the schema: those whose help names it (`see: paperplay schema NAME`),
    and `verify` for a game record (one with a "game" field)."""
    found = []
    for path, command in _walk(_cli()):
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        names_it = path != ("schema",) and any(re.search(rf"schema {re.escape(name)}\b", t) for t in texts)
        if names_it or (path == ("verify",) and "game" in schema.get("properties", {})):
            found.append(f"[`paperplay {' '.join(path)}`](../commands/{'-'.join(path)}.md)")
    return found


def _format_page(name: str, schema: dict[str, Any]) -> str:
    readers = _readers(name, schema)
    out = [f"# {schema['title']}\n", _escape(schema.get("description", "")) + "\n",
           f"Schema `{name}`: `paperplay schema {name}` prints it."
           + (f" Read by {', '.join(readers)}." if readers else "") + "\n",
           *([NOTES[name] + "\n"] if name in NOTES else []),
           "## Fields\n", "| Field | Type | Required | Description |", "|---|---|---|---|"]
    for field, kind, required, text in _fields(schema, schema):
        out.append(f"| `{field}` | {_cell(kind)} | {'yes' if required else ''} | {_cell(text)} |")
    example = EXAMPLES[name]
    text = (ROOT / "docs" / "examples" / example).read_text(encoding="utf-8")
    others = [f for f in EXAMPLE_OF.get(name, []) if f != example]
    out += ["", "## Example", "",
            f"[`docs/examples/{example}`](../../examples/{example}):", "",
            "```json", _compact(text), "```", ""]
    if others:
        out.append("More in `docs/examples/`: " + ", ".join(f"[`{f}`](../../examples/{f})" for f in others) + ".\n")
    out += ["## The schema", "", f'??? note "paperplay schema {name}"', "",
            "    ```json", *("    " + line for line in json.dumps(schema, indent=2, ensure_ascii=False).splitlines()),
            "    ```", ""]
    return "\n".join(out)


def _compact(text: str) -> str:
    """The example file as written, or, when it runs long, a field a line and a long list's items a line each."""
    if text.count("\n") < 40 and max(map(len, text.splitlines())) <= 160:
        return text.rstrip("\n")
    value = json.loads(text)

    def shown(item: Any) -> str:
        one = json.dumps(item, ensure_ascii=False)
        if isinstance(item, list) and len(one) > 100:
            return "[\n" + ",\n".join("    " + json.dumps(v, ensure_ascii=False) for v in item) + "\n  ]"
        return one

    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {shown(v)}" for k, v in value.items()) + "\n}"


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The schema a $ref names, local or in another shipped schema, with the document it is in (its own
    $refs are read there); keywords beside the $ref are kept."""
    while "$ref" in schema:
        target_file, _, pointer = schema["$ref"].partition("#")
        if target_file:
            from paperplay.resources import load_schema

            root = load_schema(target_file.removesuffix(".schema.json"))
        found: Any = root
        for part in [p for p in pointer.split("/") if p]:
            found = found[part]
        schema = {**found, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema, root


def _kind(schema: dict[str, Any], root: dict[str, Any]) -> str:
    """A field's type in words: integer 1-30, "*", array of …, one of …."""
    schema, root = _resolve(schema, root)
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " or ".join(json.dumps(v) for v in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(_kind(s, root) for s in schema[key])
    kind = schema.get("type", "any")
    words = []
    for k in kind if isinstance(kind, list) else [kind]:
        if k == "integer" and "minimum" in schema and "maximum" in schema:
            words.append(f"integer {schema['minimum']}-{schema['maximum']}")
        elif k == "integer" and ("minimum" in schema or "maximum" in schema):
            words.append(f"integer ≥ {schema['minimum']}" if "minimum" in schema else f"integer ≤ {schema['maximum']}")
        elif k == "array" and "prefixItems" in schema:
            words.append("[" + ", ".join(_kind(s, root) for s in schema["prefixItems"]) + "]")
        elif k == "array" and isinstance(schema.get("items"), dict):
            words.append(f"array of {_kind(schema['items'], root)}")
        else:
            words.append(k)
    return " or ".join(words)


Row = tuple[str, str, bool, str]


def _fields(schema: dict[str, Any], root: dict[str, Any], prefix: str = "", depth: int = 0) -> list[Row]:
    """Every field of an object schema, nested fields as a.b, items of arrays as a[].b, maps as a{}.b."""
    schema, root = _resolve(schema, root)
    rows: list[Row] = []
    required = set(schema.get("required", []))
    for field, sub in schema.get("properties", {}).items():
        sub, sub_root = _resolve(sub, root)
        path = f"{prefix}{field}"
        rows.append((path, _kind(sub, sub_root), field in required, sub.get("description", "")))
        if depth < 6:
            rows += _nested(sub, sub_root, path, depth)
    return rows


def _nested(schema: dict[str, Any], root: dict[str, Any], path: str, depth: int) -> list[Row]:
    """The fields inside a field: an object's, an array's items', a map's values', each alternative's."""
    schema, root = _resolve(schema, root)
    rows: list[Row] = []
    if "properties" in schema:
        rows += _fields(schema, root, path + ".", depth + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        rows += _nested(items, root, path + "[]", depth + 1)
    values = schema.get("additionalProperties")
    if isinstance(values, dict):
        rows += _nested(values, root, path + "{}", depth + 1)
    for key in ("oneOf", "anyOf"):
        for alternative in schema.get(key, []):
            seen = {row[0] for row in rows}
            rows += [row for row in _nested(alternative, root, path, depth + 1) if row[0] not in seen]
    return rows


# MkDocs hook events ---------------------------------------------------------------------------------

def _pages() -> dict[str, tuple[str, str]]:
    return {**command_pages(), **format_pages()}


_PAGES: dict[str, tuple[str, str]] = {}


def on_config(config: Any) -> Any:
    """Lists the generated pages in the nav, under the index page that stands for them there."""
    if str(ROOT) not in sys.path:  # this checkout's paperplay, not another one installed (MkDocs restores
        sys.path.insert(0, str(ROOT))  # sys.path after loading a hook, so it is set here)
    _PAGES.clear()
    _PAGES.update(_pages())
    config["nav"] = [_expand(item) for item in config["nav"]]
    return config


def _expand(item: Any) -> Any:
    if isinstance(item, dict):
        return {title: _expand_entry(value) for title, value in item.items()}
    return item


def _expand_entry(value: Any) -> Any:
    if isinstance(value, list):
        return [_expand(v) for v in value]
    for index in (f"{COMMANDS}/index.md", f"{FORMATS}/index.md"):
        if value == index:
            folder = index.removesuffix("index.md")
            return [index] + [{title: path} for path, (title, _) in _PAGES.items()
                              if path.startswith(folder) and path != index]
    return value


def on_files(files: Any, config: Any) -> Any:
    """Adds the generated pages to the build."""
    from mkdocs.structure.files import File

    for path, (_, text) in _PAGES.items():
        files.append(File.generated(config, path, content=text))
    return files


if __name__ == "__main__":  # python docs/hooks/reference.py OUT: the pages as files
    sys.path.insert(0, str(ROOT))
    out = Path(sys.argv[1])
    for path, (_, text) in _pages().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
    print(f"Wrote {len(_pages())} pages to {out}")
