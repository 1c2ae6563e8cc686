"""Stage 1, syntax: the grammar (`grammar/*.lark`), the one LALR parser with worded errors, and
the text-level re-indentation of rule sets used by the formatter. Imports nothing else of the
compiler but its errors."""
