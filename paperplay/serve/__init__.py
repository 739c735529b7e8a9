"""The game night server (`paperplay serve`, the serve extra): see paperplay.serve.app for its API."""
