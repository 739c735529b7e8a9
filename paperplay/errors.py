"""The two kinds of failure: input that cannot be used, and play that breaks a rule."""

from __future__ import annotations

from dataclasses import dataclass


class InputError(Exception):
    """Input that cannot be used at all (exit code 2): a missing file, bad JSON, a bad option."""


@dataclass(frozen=True)
class Problem:
    """One broken rule: a rule code, and a sentence naming the boxes, squares or turn involved."""

    rule: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}
