"""The layer above the runtime: agents (`agents`, `greedy`, `mcts`), the play loop and simulation
(`simulate`), game logs and replay (`logs`), hand-built positions (`positions`). Reads games only
through the API a compiled game exposes (hansa.runtime)."""
