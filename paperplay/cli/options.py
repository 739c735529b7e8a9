"""Options shared by several commands, declared once; one short option means one thing everywhere.

Short options: -n players, -s seed, -o out, -f force, -g games, -j jobs, -l line.
Choices come from the data they name: games from paperplay.games, paper sizes from
paperplay.render.paper.PAPER_SIZES, Sequence levels from templates/sequence/game.json.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from paperplay.errors import InputError
from paperplay.games import GAME_NAMES, GAMES
from paperplay.i18n import LANGUAGES, locale_lang
from paperplay.messages import did_you_mean
from paperplay.render.paper import PAPER_SIZES
from paperplay.resources import load_template

LEVELS = tuple(load_template("sequence/game.json")["levels"])
CALLABLE = tuple(g.name for g in GAMES if g.can_call)


try:  # typer 0.2x carries its own copy of click
    from typer._click import exceptions as click_exceptions
    from typer._click import types as click_types
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef]  # noqa: F401 - app.py's
    from click import types as click_types  # type: ignore[no-redef]


class WholeNumber(click_types.IntParamType):
    """An integer option written in ASCII digits, with a minus sign if any: Python's int(), which
    click uses, also reads '２' (full-width), '+3', ' 3' and '3_0' (as 30)."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and not re.fullmatch(r"-?[0-9]+", value):
            self.fail(f"is {value!r}; expected a whole number written with the digits 0-9", param, ctx)
        if isinstance(value, str) and len(value.lstrip("-")) > 18:  # far past any option's range (and int()'s)
            self.fail(f"is a number of {len(value.lstrip('-')):,} digits; far more than any value it "
                      "takes", param, ctx)
        return super().convert(value, param, ctx)


class OnceCommand(TyperCommand):
    """A command whose options that take one value are given at most once: click lets the last of
    `--cells A --cells B` win silently, which drops a sheet (or a seed, a player count) unseen."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and not ctx.resilient_parsing:
            self._no_option_as_value(ctx, args)
            try:
                _, _, order = self.make_parser(ctx).parse_args(args=list(args))
            except click_exceptions.UsageError:
                order = []  # the parse below says what is wrong
            given = Counter(param for param in order if param.param_type_name == "option" and not param.multiple
                            and not getattr(param, "is_flag", False) and not getattr(param, "count", False))
            for param, times in given.items():  # the first repeated, in the order given
                if times > 1:
                    raise click_exceptions.BadParameter(f"is given {times} times; give it once (only one value is "
                                                        "used)", ctx=ctx, param=param)
        return super().parse_args(ctx, args)

    def _no_option_as_value(self, ctx: Any, args: list[str]) -> None:
        """`--seed --json` would take "--json" as the seed (click allows it) and drop the flag unseen."""
        params = self.get_params(ctx)
        names = {name for param in params if param.param_type_name == "option"
                 for name in (*param.opts, *param.secondary_opts)}
        valued = {name: param for param in params for name in param.opts if param.param_type_name == "option"
                  and not getattr(param, "is_flag", False) and not getattr(param, "count", False)}
        for token, following in zip(args, args[1:]):
            if token == "--":
                return
            if token in valued and following in names:
                raise click_exceptions.BadParameter(f"is followed by {following}, another option; give its value "
                                                    f"right after {token}", ctx=ctx, param=valued[token])


WHOLE = WholeNumber()
"""The type of every integer option (click_type=WHOLE)."""


class FileName(click_types.StringParamType):
    """A file to write (typer makes the Path): a name that ends in a slash names a folder, which
    pathlib would drop, writing a file of the folder's name."""

    name = "file"
    EXTENSIONS = {"out": ".pdf", "pdf": ".pdf", "html": ".html", "plot": ".png"}
    """The example file name's extension, by the option's name."""
    ENDINGS = {"out": (".pdf",), "pdf": (".pdf",), "html": (".html", ".htm")}
    """What the file an option names may end in (--plot checks its own two), by the option's name."""
    FORMATS = (".pdf", ".html", ".htm", ".png", ".json", ".jpg", ".jpeg", ".svg", ".txt", ".csv")
    """Extensions of formats: a name ending in another one than its option writes (`-o results.json`)
    is a slip, refused rather than written under it. No extension, or another one, is written as given."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str):
            example = "output" + self.EXTENSIONS.get(getattr(param, "name", ""), "")
            if not value:
                self.fail(f"is empty; expected a file name, e.g. {example}", param, ctx)
            if value.endswith(("/", os.sep)) or os.path.basename(value) in (".", ".."):
                folder = value.rstrip("/" + os.sep) or value
                self.fail(f"is {value!r}, a folder; expected a file name in it, e.g. "
                          f"{os.path.join(folder, example)}", param, ctx)
            endings = self.ENDINGS.get(getattr(param, "name", ""), ())
            suffix = os.path.splitext(value)[1].lower()
            if suffix in self.FORMATS and endings and suffix not in endings:
                self.fail(f"is {value!r}, a {suffix} name; expected a file name ending in {endings[0]}, "
                          f"e.g. {example}", param, ctx)
        return super().convert(value, param, ctx)


class FolderName(click_types.StringParamType):
    """A folder to write files in (typer makes the Path): an existing file there is refused."""

    name = "folder"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if value == "":
            self.fail("is empty; expected a folder to write in, e.g. output", param, ctx)
        if value == "-":  # elsewhere "-" means standard output, which holds no folder
            self.fail("is '-'; expected a folder to write in, e.g. output (write ./- to mean a folder of that name)",
                      param, ctx)
        if isinstance(value, str) and os.path.exists(value) and not os.path.isdir(value):
            self.fail(f"is {value!r}, a file; expected a folder to write in (made if missing)", param, ctx)
        return super().convert(value, param, ctx)


FOLDER = FolderName()
"""The type of an option naming a folder to write in."""


class InputName(click_types.StringParamType):
    """A file to read (typer makes the Path): an empty name is refused (pathlib would read it as ".",
    the current folder)."""

    name = "input"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if value == "":
            self.fail("is empty; expected the name of a file to read", param, ctx)
        return super().convert(value, param, ctx)


INPUT = InputName()
"""The type of every argument naming files to read (click_type=INPUT)."""

FILE = FileName()
"""The type of every option naming a file to write (click_type=FILE)."""


class DatabaseName(FileName):
    """serve's --db: a SQLite file (checked as a file to write), or a PostgreSQL URL (postgresql://… or
    postgres://…), taken as given: its checks (and its password, never printed) are the store's."""

    name = "database"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and value.strip().lower().startswith(("postgresql://", "postgres://")):
            return value.strip()
        return super().convert(value, param, ctx)


DATABASE = DatabaseName()
"""The type of serve's --db (click_type=DATABASE)."""


def choice(values: Sequence[str]) -> Callable[[str | None], str | None]:
    """A check that an option's value is one of `values` (the choices come from data, not code), in
    any case (A4 is a4), with the closest choice suggested for a typo."""

    def check(value: str | None) -> str | None:
        if value is None or value in values:
            return value
        if value.lower() in values:
            return value.lower()
        if len(values) == 1:  # nothing to choose between: "did you mean" the one value reads oddly
            raise typer.BadParameter(f"is {value!r}; expected {values[0]}, the only choice")
        raise typer.BadParameter(f"is {value!r}; expected one of {', '.join(values)}{did_you_mean(value, values)}")

    return check


def _metavar(values: Sequence[str]) -> str:
    return "[" + "|".join(values) + "]"


SEED_HELP = ("Seed (1-32 letters A-Z and digits; anything else, such as punctuation or ø, is ignored). A new "
             "one is made when omitted.")
OUT_HELP = "Output PDF. Default: output/<game>-<SEED>-<what>.pdf"

GameArgument = Annotated[str, typer.Argument(callback=choice(GAME_NAMES), metavar=_metavar(GAME_NAMES),
                                             help="Which game: " + ", ".join(GAME_NAMES) + ".", show_default=False)]
CallableGameArgument = Annotated[str, typer.Argument(callback=choice(CALLABLE), metavar=_metavar(CALLABLE),
                                                     help="The game to call: " + ", ".join(CALLABLE) + ".",
                                                     show_default=False)]
Paper = Annotated[str | None, typer.Option("--paper", callback=choice(tuple(PAPER_SIZES)),
                                           metavar=_metavar(tuple(PAPER_SIZES)),
                                           help="Paper size (default a4; a3 only where a game offers it).",
                                           show_default=False)]
SHEET_PAPERS = next(g for g in GAMES if g.name == "streams").papers
SheetPaper = Annotated[str | None, typer.Option("--paper", callback=choice(SHEET_PAPERS),
                                                metavar=_metavar(SHEET_PAPERS), help="Paper size (default a4).",
                                                show_default=False)]
Players = Annotated[int | None, typer.Option("--players", "-n", click_type=WHOLE, help="Number of players.",
                                             show_default=False)]
def seed(help: str = SEED_HELP, show_default: bool = False) -> Any:
    """The --seed option (-s SEED), with the command's own help: every command declares it so."""
    return typer.Option("--seed", "-s", metavar="SEED", help=help, show_default=show_default)


Seed = Annotated[str | None, seed()]
RequiredSeed = Annotated[str, seed("The seed whose draw to use.")]
Names = Annotated[str | None, typer.Option("--names", metavar="NAMES",
                                           help="Player names, comma-separated, printed on the sheets.",
                                           show_default=False)]
Out = Annotated[Path | None, typer.Option("--out", "-o", help=OUT_HELP, click_type=FILE, show_default=False)]
Force = Annotated[bool, typer.Option("--force", "-f", help="Overwrite the output file if it exists.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
CardSet = Annotated[int | None, typer.Option("--set", click_type=WHOLE,
                                             help="Streetcar: route cards, 2 or 3 stops (default 2).",
                                             show_default=False)]
Numbers = Annotated[str | None, typer.Option("--numbers", metavar="NUMBERS",
                                             help="Sequence: board numbers: 1-48 (default), 0-47, "
                                                  "times-tables or 48 numbers separated by commas.",
                                             show_default=False)]
Level = Annotated[str | None, typer.Option("--level", callback=choice(LEVELS), metavar=_metavar(LEVELS),
                                           help="Sequence: equation level (default mixed).", show_default=False)]
InkSaver = Annotated[bool | None, typer.Option("--ink-saver", help="White backgrounds and outlines instead of fills.",
                                               show_default=False)]
BackOffset = Annotated[str | None, typer.Option("--back-offset", metavar="X,Y",
                                                help="Shift card backs by X,Y mm to meet a duplex printer's "
                                                "drift: +X moves them right, +Y down, as the back page is "
                                                "seen (e.g. 1.5,-0.5).",
                                                show_default=False)]
Variant = Annotated[str | None, typer.Option("--variant", metavar="NAME|FILE",
                                             help="Streams variant: standard (the default), a shipped "
                                                  "NAME, or a variant FILE.json (see: paperplay schema "
                                                  "streams-variant).",
                                             show_default=False)]
_LANG_NAMES = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
_LANG_DEFAULT = ". Default: the locale's (LC_ALL, LC_MESSAGES, LANG), else en."


def _lang(what: str) -> Any:
    return typer.Option("--lang", callback=choice(tuple(LANGUAGES)), metavar=_metavar(tuple(LANGUAGES)),
                        help=f"Language of {what}: {_LANG_NAMES}{_LANG_DEFAULT}", show_default=False)


Lang = Annotated[str | None, _lang("the printed pages")]
PageLang = Annotated[str | None, _lang("the --html page (the terminal output is in English)")]
RouteLang = Annotated[str | None, _lang("the --pdf drawing (the terminal output is in English)")]
Scannable = Annotated[bool | None, typer.Option("--scannable", help="Streams: sheets that paperplay scan can read "
                                                "from photos (corner marks, tens | units cells).",
                                                show_default=False)]


def lang_or_locale(lang: str | None) -> str:
    """The --lang option, or the locale's language when it is not given (English when paperplay has no other)."""
    return lang if lang is not None else locale_lang()


def names_list(names: str | None) -> list[str] | None:
    """The --names option as a list (None when not given)."""
    if names is None:
        return None
    listed = [n.strip() for n in names.split(",")]
    if not names.strip():
        raise InputError("is empty; expected names separated by commas, e.g. \"Ann,Bob\" (or leave --names out)",
                         field="names")
    for number, name in enumerate(listed, start=1):
        if not name:
            raise InputError(f"name {number} of {len(listed)} is empty; expected names separated by commas, "
                             f"e.g. \"Ann,Bob\"", field="names")
        undecoded = [c for c in name if "\udc80" <= c <= "\udcff"]  # a byte the locale could not decode
        if undecoded:
            shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise InputError(f"name {number} of {len(listed)} ({shown!r}) holds the byte "
                             f"0x{ord(undecoded[0]) - 0xDC00:02X}, which is not UTF-8 text; expected names in UTF-8 "
                             "(set the terminal's character encoding to UTF-8)", field="names")
    return listed
