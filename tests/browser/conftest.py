"""Headless Chromium from Debian's packages, driven by Playwright for Python. Never
`playwright install` (it downloads a browser): the system Chromium is the one used. Without it
every test here is skipped with a reason that says so; `make test` installs it as root."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",  # the sandbox refuses to run as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SKIP_REASON = (
    f"browser tests skipped: Debian's chromium is not installed at {CHROMIUM} "
    "(`make test` installs it with apt-get when run as root)"
)
TIMEOUT_MS = 30_000  # each Playwright action; a loaded 2-core machine renders slowly, never this slowly


def chromium_available() -> bool:
    return CHROMIUM.exists()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[object]:
    if not chromium_available():
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="agentmem-chromium-")  # a fresh user-data-dir every run
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=str(CHROMIUM),
                headless=True,
                args=FLAGS,
                viewport={"width": 1400, "height": 1000},
                offline=False,  # loopback only; the pages fetch nothing from anywhere else
            )
            context.set_default_timeout(TIMEOUT_MS)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
