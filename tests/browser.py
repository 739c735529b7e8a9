"""The system's Chromium, driven by Playwright: found on this machine, never downloaded."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def find_chromium() -> str | None:
    """The Chromium to drive: $PAPERPLAY_CHROMIUM, Debian's /usr/bin/chromium, or one on PATH."""
    candidates = [os.environ.get("PAPERPLAY_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                  shutil.which("chromium-browser")]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def launch(playwright, executable: str):  # type: ignore[no-untyped-def]
    """Starts headless Chromium with no network side traffic."""
    return playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
