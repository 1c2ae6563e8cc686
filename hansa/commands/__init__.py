"""One module per `hansa` subcommand (see `hansa.cli`)."""
