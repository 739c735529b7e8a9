"""Streams: the rules core (rules), sheet files (sheet) and printed pages (pages)."""
