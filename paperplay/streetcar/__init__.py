"""Streetcar (Linie 1): game data (data), the seeded deal (deal) and the print-and-play kit (pages)."""
