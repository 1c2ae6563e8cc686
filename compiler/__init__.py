"""The compiler: grammar, lowering to IR, checks, templates and code generation."""

from pathlib import Path

# The built-in spec: the printed boards and the editions, modules and house rules that ship with
# hansa (`spec/` in the repository, `hansa/spec` when installed). A spec folder of one's own may
# use its boards and rule sets without copying them (`extends bigbox_2021`, `on hanseatic_45p`);
# a declaration of the same name in one's own folder takes precedence. Kept here, light to import,
# because the spec cache's key (hansa/resolve.py) covers these files without loading the compiler.
LIBRARY_DIR = Path(__file__).resolve().parent.parent / "spec"
