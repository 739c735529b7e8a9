"""The game night server's routes, grouped by resource (games, sheets, files, pages); paperplay.serve.app
puts them together."""
