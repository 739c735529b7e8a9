"""Makes paperplay/serve/lookalikes.py: the letters of other scripts that Unicode's confusables list (TR39)
draws as a Latin letter or a digit, as the server's name check compares them (paperplay.serve.names).

    pip download --no-deps confusable-homoglyphs && unzip -o confusable_homoglyphs-*.whl
    python lab/lookalikes.py confusable_homoglyphs/confusables.json > paperplay/serve/lookalikes.py

The input is the confusables list as that package ships it (each character: the characters confusable
with it). Kept: single characters still different from ASCII after NFKC and case folding (those NFKC
already maps, such as a fullwidth or mathematical "a", need no entry), each mapped to the first ASCII
letter (lower case) or digit it is confusable with. Only the standard library.
"""

from __future__ import annotations

import json
import string
import sys
import unicodedata
from pathlib import Path


def table(confusables: dict[str, list[dict[str, str]]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for target in string.ascii_lowercase + string.ascii_uppercase + string.digits:
        for entry in confusables.get(target, []):
            char = entry["c"]
            if len(char) != 1 or char.isascii():
                continue
            folded = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", char).casefold())
            if len(folded) == 1 and not folded.isascii():
                out.setdefault(folded, target.lower())
    return dict(sorted(out.items()))


def module(pairs: dict[str, str]) -> str:
    escaped = ["".join(f"\\U{ord(c):08x}" if ord(c) > 0xFFFF else f"\\u{ord(c):04x}" for c in source) + target
               for source, target in pairs.items()]
    lines, line = [], ""
    for pair in escaped:
        if len(line) + len(pair) > 100:
            lines.append(line)
            line = ""
        line += pair
    lines.append(line)
    body = "\n".join(f'    "{text}"' for text in lines)
    return (f'"""Letters of other scripts drawn as a Latin letter or a digit (Unicode TR39 confusables), as pairs:\n'
            f'each character, then the ASCII letter or digit it looks like. Made by lab/lookalikes.py: do not edit.\n'
            f'"""\n\nPAIRS = (\n{body}\n)\n"""{len(pairs)} characters, each followed by its lookalike."""\n')


if __name__ == "__main__":
    sys.stdout.write(module(table(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")))))
