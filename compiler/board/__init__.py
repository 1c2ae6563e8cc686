"""Stage 2, boards: lowering board syntax to `nodes.board`, the graph checks (networkx), reference
JSON import/export, the canonical formatter, the plane regions of the 2-player variant, and
rendering."""
