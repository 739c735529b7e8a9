"""The paperplay command line: one typer app, commands from the modules beside this one."""

from __future__ import annotations

import difflib
import errno
import os
import signal
import sys
import threading
import traceback
from typing import Any, NoReturn

import typer

from paperplay import __version__, interrupts
from paperplay.cli import coach_cmds, draw_cmds, print_cmds, referee_cmds, scan_cmds, serve_cmds
from paperplay.cli import options as opt
from paperplay.errors import InputError, debugging
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


PIPE_CLOSED = 141
"""The code when whoever reads stdout stops reading (`paperplay … | head -1`): 128 + SIGPIPE, as a
shell reports a command the closed pipe ended; no message (there is no one to read it)."""
UNWRITABLE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
"""Why standard output may refuse what paperplay writes (`> /dev/full`, a full disk): exit 2, one line."""
_signalled: list[int] = []
_ending = threading.Lock()  # held by whoever says the run was stopped: one line, never two
_watchdog: list[threading.Timer] = []
SWALLOWED_GRACE = 5.0
"""Seconds after a signal before the run is ended from a timer thread, in case the interrupt raised
in the main thread was swallowed (by a callback from C that cannot raise, e.g. numba compiling)."""


def _stopped_code() -> int:
    return 143 if _signalled and _signalled[-1] == signal.SIGTERM else 130


def _say_stopped() -> None:
    _say("stopped (SIGTERM)" if _stopped_code() == 143 else "interrupted")


def _end_now() -> None:
    """Ends a run whose interrupt never reached main(), or came during work it must not cut (see
    paperplay.interrupts): temporary files removed, one line, the code."""
    if not _ending.acquire(blocking=False):  # main() is ending it already
        return
    from paperplay.files import remove_empty_folders, remove_temporary_files

    remove_temporary_files()
    remove_empty_folders()
    _say_stopped()
    _leave(_stopped_code())


def _leave(code: int) -> NoReturn:
    """Ends a stopped run at once. Python's own shutdown is skipped: it puts the default signal
    handlers back, so an impatient second Ctrl-C could kill it half-way, and its clean-up would wait
    for workers; the workers are stopped here instead."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None:
        try:
            for child in multiprocessing.active_children():
                child.terminate()
            _release_semaphores()
        except Exception:  # noqa: BLE001 - ending anyway; a worker that outlives us finds its pipe closed
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more can be said
            pass
    os._exit(code)


def _on_signal(signum: int, frame: Any) -> None:
    _signalled.append(signum)
    if _ending.locked():  # the run is ending already, with its one line: a second Ctrl-C changes nothing
        return
    if interrupts.inside():  # work an exception must not cut (numba compiling): end the run from here
        _end_now()
        return
    if not _watchdog:
        timer = threading.Timer(SWALLOWED_GRACE, _end_now)
        timer.daemon = True
        _watchdog.append(timer)
        timer.start()
    raise KeyboardInterrupt  # unwinds like Ctrl-C: temporary files are removed on the way out


def _on_unraisable(args: Any) -> None:
    """An interrupt raised where Python cannot pass it on (inside a callback from C) ends the run now.
    Once the run is stopped, any other error Python cannot pass on is dropped: it comes from an object
    the interrupt left half-built (llvmlite's destructors fail on one), and the run ends in one line.
    Before a signal, errors go to the usual hook."""
    if not _signalled:
        sys.__unraisablehook__(args)
    elif args.exc_type is KeyboardInterrupt:
        _end_now()


def _install_signal_handlers() -> dict[int, Any]:
    previous: dict[int, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread: leave signals alone
            pass
    return previous


def _restore_signal_handlers(previous: dict[int, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    for timer in _watchdog:
        timer.cancel()
    _watchdog.clear()
    _signalled.clear()
    if _ending.locked():
        _ending.release()


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


def _stop() -> int:
    """Ends a run a signal stopped: its temporary files removed, its one line said; its exit code."""
    from paperplay.files import remove_temporary_files

    _ending.acquire()  # waits (for good) if the watchdog is ending the run already
    remove_temporary_files()
    _say_stopped()
    return _stopped_code()


def _wraps_an_interrupt(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt caused `exc`: Python re-raises one from `__set_name__` while a class
    is made (a dataclass imported as Ctrl-C arrives) as a RuntimeError with the interrupt as its cause."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def main(argv: list[str] | None = None) -> None:
    """Runs the command line with one error channel, and exits with its code.

    0 valid, 1 a rule is broken, 2 the input cannot be used (one line on stderr naming the file and
    field, or the option), 3 an internal error (a bug; PAPERPLAY_DEBUG=1 shows the traceback),
    130 interrupted by Ctrl-C (143 for SIGTERM), with temporary files removed.
    """
    errors = opt.click_exceptions
    ClickException, Abort = errors.ClickException, typer.Abort
    NoArgsIsHelpError = getattr(errors, "NoArgsIsHelpError", ())
    from paperplay.files import remove_empty_folders, remove_temporary_files

    _safe_streams()
    _signalled.clear()
    previous = _install_signal_handlers()
    unraisable, sys.unraisablehook = sys.unraisablehook, _on_unraisable
    code = 0
    stopped = False
    try:
        _check_arguments(sys.argv[1:] if argv is None else argv)
        if sys.stdout is None:  # started with standard output closed (`>&-`): what it says would be lost
            raise InputError("standard output is closed; run it with its output going somewhere (> FILE, or "
                             "> /dev/null to drop it)")
        result = app(args=argv, prog_name="paperplay", standalone_mode=False)
        code = result if isinstance(result, int) else 0
        if code == 130:  # typer turns Ctrl-C (and SIGTERM, see _on_signal) into exit code 130
            raise KeyboardInterrupt
    except InputError as exc:
        _say(f"error: {exc}")
        code = 2
    except NoArgsIsHelpError as exc:  # `paperplay` alone: one line, as for any other usage error
        ctx = getattr(exc, "ctx", None)
        lister = getattr(getattr(ctx, "command", None), "list_commands", None)
        what = f"a command ({', '.join(lister(ctx))})" if lister is not None else "arguments"
        _say(f"error: give {what}; see: {ctx.command_path if ctx is not None else 'paperplay'} --help")
        code = 2
    except ClickException as exc:
        _say(f"error: {_usage_message(exc)}")
        code = 2
    except (KeyboardInterrupt, Abort):
        code, stopped = _stop(), True
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # click's answer to a closed pipe (EPIPE)
            code = PIPE_CLOSED
    except Exception as exc:  # a bug: one line, exit 3; the traceback only on request
        remove_temporary_files()
        if _wraps_an_interrupt(exc):  # Python wrapped the Ctrl-C (a class being made at start-up: RuntimeError)
            code, stopped = _stop(), True
        elif isinstance(exc, OSError) and exc.errno in UNWRITABLE:  # stdout cannot take more: not a bug
            code = _stdout_refused(exc)
        else:
            if debugging():
                traceback.print_exc()
            _say(f"internal error: {type(exc).__name__}: {exc} (run with PAPERPLAY_DEBUG=1 for the traceback)")
            code = 3
    finally:
        if stopped and argv is None:  # the command line is ending: another signal ends it at once, quietly
            previous = {sig: (lambda signum, frame, code=code: _leave(code)) for sig in previous}
        _restore_signal_handlers(previous)
        # a stopped command line drops them until it leaves: objects the interrupt left half-built
        sys.unraisablehook = (lambda args: None) if stopped and argv is None else unraisable
        remove_empty_folders()
        try:
            sys.stdout.flush()
        except BrokenPipeError:  # whoever read stdout stopped reading before the last of it
            _close_stdout()
            if code == 0:
                code = PIPE_CLOSED
        except OSError as exc:  # the last of stdout could not be written (a full disk)
            if code == 0 and exc.errno in UNWRITABLE:
                code = _stdout_refused(exc)
            _close_stdout()
        except Exception:  # noqa: BLE001 - stdout cannot be flushed (closed); nothing is lost
            pass
    if stopped and argv is None:
        _leave(code)
    sys.exit(code)


def _release_semaphores() -> None:
    """Unlinks the named semaphores of spawned pools, whose finalizers os._exit skips: else
    multiprocessing's resource tracker, a process of its own, warns of them on stderr as it ends."""
    util, synchronize = sys.modules.get("multiprocessing.util"), sys.modules.get("multiprocessing.synchronize")
    if util is None or synchronize is None:
        return
    for finalizer in list(getattr(util, "_finalizer_registry", {}).values()):
        if getattr(finalizer, "_callback", None) is synchronize.SemLock._cleanup:
            finalizer()


def _stdout_refused(exc: OSError) -> int:
    """Says that standard output could not take what was written (one line), and the code: 2."""
    _close_stdout()
    _say(f"error: standard output could not be written ({exc.strerror})")
    return 2


def _close_stdout() -> None:
    """Points stdout at /dev/null, so that Python's own flush as it exits finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
