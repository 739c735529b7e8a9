"""The documentation site: its examples follow their schemas, its generated pages cover every command,
option and file format, and no page sends the reader outside the repository."""

from __future__ import annotations

import json
import re

import pytest
import typer
from docpages import PAGES, ROOT, name, reference_hook, text

from paperplay.cli.app import app
from paperplay.jsonfile import validate
from paperplay.resources import schema_names

HOOK = reference_hook()
EXAMPLES = ROOT / "docs" / "examples"


def _schema_of() -> dict[str, str]:
    """Each file of docs/examples/ with the schema it is in."""
    found = {example: schema for schema, example in HOOK.EXAMPLES.items()}
    for schema, examples in HOOK.EXAMPLE_OF.items():
        found.update(dict.fromkeys(examples, schema))
    return found


def test_every_schema_has_an_example_on_its_page():
    assert sorted(HOOK.EXAMPLES) == schema_names()


def test_every_file_of_docs_examples_has_its_schema():
    assert sorted(p.name for p in EXAMPLES.glob("*.json")) == sorted(_schema_of())


@pytest.mark.parametrize("example, schema", sorted(_schema_of().items()))
def test_an_example_follows_its_schema(example, schema):
    validate(json.loads((EXAMPLES / example).read_text(encoding="utf-8")), schema, example)  # raises InputError


def test_the_check_finds_an_example_that_breaks_its_schema():
    from paperplay.errors import InputError

    sheet = json.loads((EXAMPLES / "ann.json").read_text(encoding="utf-8"))
    with pytest.raises(InputError, match="cells"):
        validate(sheet | {"cells": sheet["cells"][:19]}, "streams-sheet", "ann.json")


def _commands() -> list[tuple[str, typer.core.click.Command]]:
    return [(" ".join(path), command) for path, command in HOOK._walk(typer.main.get_command(app))]


def test_every_command_and_option_has_its_generated_page():
    pages = HOOK.command_pages()
    assert len(_commands()) >= 12
    for path, command in _commands():
        page = pages[f"reference/commands/{path.replace(' ', '-')}.md"][1]
        assert f"# paperplay {path}\n" in page
        for param in command.params:
            for option in param.opts if param.param_type_name == "option" else []:
                assert f"`{option}" in page or f", {option}" in page, (path, option)
        assert "Usage: paperplay " + path in page  # the full --help, as the terminal shows it


def test_the_commands_index_links_every_command():
    index = HOOK.command_pages()["reference/commands/index.md"][1]
    for path, _ in _commands():
        assert f"[`paperplay {path}`]({path.replace(' ', '-')}.md)" in index


def test_every_schema_has_its_generated_page_with_every_field():
    from paperplay.resources import load_schema

    pages = HOOK.format_pages()
    for schema in schema_names():
        page = pages[f"reference/formats/{schema}.md"][1]
        for field in load_schema(schema).get("properties", {}):
            assert f"| `{field}` |" in page, (schema, field)
        assert json.dumps(json.loads((EXAMPLES / HOOK.EXAMPLES[schema]).read_text(encoding="utf-8"))) == \
            json.dumps(json.loads(re.search(r"```json\n(.*?)```", page, re.S).group(1)))  # the example, shown whole


def test_the_nav_names_the_generated_pages():
    config = {"nav": [{"Reference": [{"Commands": "reference/commands/index.md"}, {"Seeds": "reference/seeds.md"}]}]}
    nav = HOOK.on_config(config)["nav"]
    commands = nav[0]["Reference"][0]["Commands"]
    assert commands[0] == "reference/commands/index.md"
    assert {"paperplay score": "reference/commands/score.md"} in commands
    assert nav[0]["Reference"][1] == {"Seeds": "reference/seeds.md"}


OUTSIDE = re.compile(r"\.\./shared|SPEC\.md|RULINGS\.md|\bSPEC\b|\bRULINGS\b")
"""What would send a reader to the project's specification, which is not in the repository."""


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_no_page_points_outside_the_repository(page):
    assert not OUTSIDE.findall(text(page))


def test_no_generated_page_points_outside_the_repository():
    for path, (_, page) in {**HOOK.command_pages(), **HOOK.format_pages()}.items():
        assert not OUTSIDE.findall(page), path


def test_the_readme_is_short_and_shows_both_commands():
    readme = text(ROOT / "README.md")
    assert len(readme) <= 12_000
    assert "pip install . && paperplay sheets --players 8" in readme
    assert "pip install '.[test,scan,fast,serve]' && pytest" in readme


def test_the_seeds_page_code_gives_paperplays_draws_and_codes():
    from paperplay.seeds import canonical_seed, full_code, game_code, shuffled
    from paperplay.streams.rules import draw, tile_json

    block = re.search(r"```python\n(.*?)```", text(ROOT / "docs" / "reference" / "seeds.md"), re.S)
    assert block is not None
    space: dict[str, object] = {}
    exec(compile(block.group(1).replace("print(", "(lambda *a: a)("), "seeds.md", "exec"), space)
    for seed in ("7KQ2-M9XD", "1", "straße-7", "x" * 32, "7kq2-m9xd-a3b-cef", "7KQ2M9XDA"):
        canonical = canonical_seed(seed)
        assert space["canonical"](seed) == canonical
        assert space["game_code"]("streams", seed) == game_code("streams", canonical)
        assert space["full_code"]("sequence", seed) == full_code("sequence", canonical)
        assert space["streams_draw"](seed) == [tile_json(t) for t in draw(canonical)]
    assert space["shuffle"](range(10), "test", "ABC") == shuffled(list(range(10)), "test", "ABC") == \
        [1, 9, 2, 8, 7, 0, 5, 3, 6, 4]


def test_the_readmes_links_and_pictures_are_files_of_the_repository():
    targets = re.findall(r"\]\(([^)#]+)\)", text(ROOT / "README.md"))
    assert len(targets) >= 10
    for target in targets:
        assert not target.startswith(("http:", "https:", "/", "..")), target
        assert (ROOT / target).is_file(), target
