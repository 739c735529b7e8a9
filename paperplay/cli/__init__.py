"""The paperplay command line (typer): app wires the commands of the other modules together."""
