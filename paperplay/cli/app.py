"""The paperplay command line: one typer app, commands from the modules beside this one, and its one error
channel (`main`): every failure is one line on standard error and an exit code (paperplay.errors.ExitCode);
signals and workers are paperplay.processes' work."""

from __future__ import annotations

import difflib
import errno
import os
import sys
import traceback
from typing import Any

import typer

from paperplay import __version__, processes
from paperplay.cli import coach_cmds, draw_cmds, print_cmds, referee_cmds, scan_cmds, serve_cmds
from paperplay.cli import options as opt
from paperplay.errors import ExitCode, InputError, debugging
from paperplay.messages import did_you_mean, one_line

app = typer.Typer(
    name="paperplay",
    help="Print seeded paper game kits (Streams, Streetcar, Sequence Numbers) and referee what was played.\n\n"
    "Examples (the files they name are in the repository's docs/examples):\n\n"
    "\b\n"
    "  paperplay sheets --players 8\n"
    "  paperplay score ann.json bob.json --seed 7KQ2-M9XD\n"
    "  paperplay draw streams --seed 7KQ2-M9XD\n"
    "  paperplay route board.json --line 2 --card 3\n"
    "  paperplay advise --cells \"3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29\" --tile 17",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"paperplay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Prints seeded paper game kits and referees what was played on paper."""


# Each command module registers its commands; --help lists them in this order.
for _module in (print_cmds, draw_cmds, referee_cmds, coach_cmds, scan_cmds, serve_cmds):
    _module.register(app)



def _usage_message(exc: Any) -> str:
    """One line for a click usage error: the option (or argument) first, then what was wrong."""
    errors = opt.click_exceptions
    BadParameter, MissingParameter, NoSuchOption = errors.BadParameter, errors.MissingParameter, errors.NoSuchOption

    message = exc.message if isinstance(exc.message, str) else str(exc)
    param = getattr(exc, "param", None)
    name = None
    if param is not None:
        name = param.opts[0] if getattr(param, "opts", None) and param.opts[0].startswith("-") else param.name
    if isinstance(exc, MissingParameter) and param is not None:
        choices = getattr(param.type, "choices", None)
        message = f"{name}: missing" + (f"; expected one of {', '.join(map(str, choices))}" if choices else "")
    elif isinstance(exc, BadParameter) and name is not None:
        message = f"{name}: {message}"
    elif isinstance(exc, NoSuchOption):
        message = f"{exc.option_name}: no such option"
        if exc.possibilities:  # the closest first
            closest = difflib.get_close_matches(exc.option_name, exc.possibilities, n=3, cutoff=0.0)
            message += f"; did you mean {' or '.join(closest)}?"
    elif message.startswith("No such command '"):  # click's own words, with its guesses in name order
        typed = message[len("No such command '"):].split("'")[0]
        commands = list(getattr(getattr(exc, "ctx", None), "command", None).commands)  # type: ignore[union-attr]
        guess = did_you_mean(typed, commands, also=("--version", "--help"))
        message = f"unknown command {typed!r}; expected one of {', '.join(commands)}{guess}"
    elif message.startswith("Got unexpected extra argument"):  # click: "Got unexpected extra argument(s) (a b)"
        extra = message[message.index(" (") + 2:].removesuffix(")")
        message = f"{extra}: more arguments than this command takes"
    elif isinstance(exc, errors.BadOptionUsage) and message.startswith("Option '"):
        option, _, rest = message[len("Option '"):].partition("' ")
        message = f"{option}: {rest}"
    ctx = getattr(exc, "ctx", None)
    where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    return message.rstrip(".") + where


def _say(message: str) -> None:
    try:
        sys.stderr.write(f"paperplay: {one_line(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # stderr closed or full: the exit code still says it
        pass


UNWRITABLE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
"""Why standard output may refuse what paperplay writes (`> /dev/full`, a full disk): exit 2, one line."""


def _clean_up() -> None:
    from paperplay.files import remove_empty_folders, remove_temporary_files

    remove_temporary_files()
    remove_empty_folders()


SIGNALS = processes.RunSignals(_say, _clean_up)
"""Ctrl-C and SIGTERM while a command runs: one line, 130 or 143, temporary files removed."""


def _safe_streams() -> None:
    """Text that cannot be encoded (a lone surrogate in a name) is written escaped, never a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass


def _check_arguments(args: list[str]) -> None:
    """Arguments a real command line cannot hold (NUL, surrogates that are no undecodable bytes).

    Only possible when main() is called in-process; refusing them keeps every path name usable.
    """
    for arg in args:
        try:
            if "\0" in arg:
                raise ValueError
            os.fsencode(arg)
        except (ValueError, UnicodeError):
            raise InputError(f"argument {arg!r} holds a NUL or a character that cannot be encoded") from None


def _run(argv: list[str] | None) -> int:
    """Runs the typer app; an unusable input or a usage error is one line and BAD_INPUT. A signal, a
    bug or an unwritable standard output is raised to main()."""
    errors = opt.click_exceptions
    NoArgsIsHelpError = getattr(errors, "NoArgsIsHelpError", ())
    try:
        _check_arguments(sys.argv[1:] if argv is None else argv)
        if sys.stdout is None:  # started with standard output closed (`>&-`): what it says would be lost
            raise InputError("standard output is closed; run it with its output going somewhere (> FILE, or "
                             "> /dev/null to drop it)")
        result = app(args=argv, prog_name="paperplay", standalone_mode=False)
        code = result if isinstance(result, int) else ExitCode.VALID
        if code == ExitCode.INTERRUPTED:  # typer turns Ctrl-C (and SIGTERM, see processes) into exit code 130
            raise KeyboardInterrupt
        return code
    except InputError as exc:
        _say(f"error: {exc}")
    except NoArgsIsHelpError as exc:  # `paperplay` alone: one line, as for any other usage error
        ctx = getattr(exc, "ctx", None)
        lister = getattr(getattr(ctx, "command", None), "list_commands", None)
        what = f"a command ({', '.join(lister(ctx))})" if lister is not None else "arguments"
        _say(f"error: give {what}; see: {ctx.command_path if ctx is not None else 'paperplay'} --help")
    except errors.ClickException as exc:
        _say(f"error: {_usage_message(exc)}")
    except SystemExit as exc:
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # click's answer to a closed pipe (EPIPE)
            return ExitCode.PIPE_CLOSED
        return exc.code if isinstance(exc.code, int) else (ExitCode.VALID if exc.code is None else ExitCode.BAD_INPUT)
    return ExitCode.BAD_INPUT


def main(argv: list[str] | None = None) -> None:
    """Runs the command line with one error channel, and exits with its code.

    0 valid, 1 a rule is broken, 2 the input cannot be used (one line on stderr naming the file and
    field, or the option), 3 an internal error (a bug; PAPERPLAY_DEBUG=1 shows the traceback),
    130 interrupted by Ctrl-C (143 for SIGTERM), with temporary files removed.
    """
    from paperplay.files import remove_empty_folders, remove_temporary_files

    _safe_streams()
    SIGNALS.install()
    code: int = ExitCode.VALID
    stopped = False
    try:
        code = _run(argv)
    except (KeyboardInterrupt, typer.Abort):
        code, stopped = SIGNALS.stop(), True
    except Exception as exc:  # a bug: one line, exit 3; the traceback only on request
        remove_temporary_files()
        if processes.wraps_an_interrupt(exc):  # Python wrapped the Ctrl-C (a class made at start-up)
            code, stopped = SIGNALS.stop(), True
        elif isinstance(exc, OSError) and exc.errno in UNWRITABLE:  # stdout cannot take more: not a bug
            code = _stdout_refused(exc)
        else:
            if debugging():
                traceback.print_exc()
            from paperplay.messages import without_passwords

            # a database URL's password never reaches the terminal, even through a bug's line
            _say(f"internal error: {type(exc).__name__}: {without_passwords(str(exc))} (run with PAPERPLAY_DEBUG=1 "
                 "for the traceback)")
            code = ExitCode.INTERNAL_ERROR
    finally:
        leaving = stopped and argv is None  # the command line is ending: another signal ends it at once
        SIGNALS.restore(code if leaving else None)
        remove_empty_folders()
        code = _flush_stdout(code)
    if stopped and argv is None:
        processes.leave(code)
    sys.exit(code)


def _flush_stdout(code: int) -> int:
    """Writes the last of standard output; the code, changed when that could not be done."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # whoever read stdout stopped reading before the last of it
        _close_stdout()
        if code == ExitCode.VALID:
            code = ExitCode.PIPE_CLOSED
    except OSError as exc:  # the last of stdout could not be written (a full disk)
        if code == ExitCode.VALID and exc.errno in UNWRITABLE:
            code = _stdout_refused(exc)
        _close_stdout()
    except Exception:  # noqa: BLE001 - stdout cannot be flushed (closed); nothing is lost
        pass
    return code


def _stdout_refused(exc: OSError) -> int:
    """Says that standard output could not take what was written (one line), and the code: BAD_INPUT."""
    _close_stdout()
    _say(f"error: standard output could not be written ({exc.strerror})")
    return ExitCode.BAD_INPUT


def _close_stdout() -> None:
    """Points stdout at /dev/null, so that Python's own flush as it exits finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
