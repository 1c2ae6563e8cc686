"""Test-session setup: games compiled from a spec folder are cached in a temporary folder, never
in the user's ~/.cache/hansa (see hansa.resolve)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    before = os.environ.get("HANSA_CACHE")
    os.environ["HANSA_CACHE"] = str(tmp_path_factory.mktemp("hansa-cache"))
    yield
    if before is None:
        os.environ.pop("HANSA_CACHE", None)
    else:
        os.environ["HANSA_CACHE"] = before
