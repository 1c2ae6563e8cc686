"""The compiler: grammar, lowering to IR, checks, templates and code generation."""
