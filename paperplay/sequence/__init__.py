"""Sequence Numbers: boards, decks and equations (rules), positions and game logs (referee), pages."""
