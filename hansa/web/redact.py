"""No answer names a place on the server's disk: paths in messages are cut to what they name.

A message the server answers with (an error, a spec's problems, an agent's failure) is written for
the command line, where a path helps; over HTTP it would tell a stranger where the server keeps
its files and who runs it. `Redactor` replaces the served spec folder (as given and resolved) by
its own name, then any other absolute path by its last part, so `/home/ann/rules/spec/a.hansa:3:1`
reads `spec/a.hansa:3:1` and `/home/ann/.cache/hansa/x.py` reads `x.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

# an absolute POSIX path of two parts or more, not inside a word or a URL ("http://a/b")
ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:[\w.+@-]+/)+[\w.+@-]*")
# ~/x and Windows drive paths (C:\x\y) too
HOME = re.compile(r"(?<![\w.:/~-])~/(?:[\w.+@-]+/)*[\w.+@-]*")
DRIVE = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[\w.+@ -]+\\)*[\w.+@-]*")


def _last_part(match: re.Match) -> str:
    text = match.group(0).rstrip("/\\")
    return re.split(r"[/\\]", text)[-1] or "."


class Redactor:
    """`redactor(text)`: `text` with no path of this server's disk in it."""

    def __init__(self, folders: Iterable[Path] = ()) -> None:
        names: dict[str, str] = {}
        for folder in folders:
            for form in {str(folder), str(folder.resolve()), str(folder.absolute())}:
                if form not in (".", "", "/"):
                    names[form.rstrip("/")] = folder.resolve().name or "."
        self.names = sorted(names.items(), key=lambda item: -len(item[0]))  # longest first

    def __call__(self, text: str) -> str:
        for form, name in self.names:
            text = text.replace(form, name)
        text = ABSOLUTE.sub(_last_part, text)
        text = HOME.sub(_last_part, text)
        return DRIVE.sub(_last_part, text)


redact = Redactor()  # without known folders: every absolute path cut to its last part
