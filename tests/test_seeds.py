"""Seeds and randomness: the test vectors of both derivations of codes (docs/reference/seeds.md), weak
seeds, the QR payload, and properties of randbelow, shuffle and the codes."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paperplay.errors import InputError
from paperplay.seeds import (
    ALPHABET, Rng, canonical_seed, code_mismatch, derivation, display_code, full_code, game_code, generate_seed,
    old_game_code, qr_text, read_payload, seed_note, seed_warning, seed_weakness, shuffled, words,
)
from paperplay.streams.rules import WILD, draw, tile_text


def test_spec_vector_words():
    assert list(itertools.islice(words("streams", "7KQ2M9XD"), 3)) == [
        5102279596940018692, 1369724995401133617, 70780033199763551]


def test_spec_vector_shuffle():
    assert shuffled(list(range(10)), "test", "ABC") == [1, 9, 2, 8, 7, 0, 5, 3, 6, 4]


def test_spec_vector_streams_draw_7kq2m9xd():
    expected = "11 3 5 17 27 25 6 4 13 15 16 1 28 15 7 18 23 8 20 24"
    assert " ".join(map(tile_text, draw("7KQ2M9XD"))) == expected


def test_spec_vector_streams_draw_1():
    expected = "27 14 13 16 5 6 1 22 14 15 4 12 24 8 15 13 10 * 16 21"
    assert " ".join(map(tile_text, draw("1"))) == expected
    assert WILD in draw("1")


def test_spec_vector_game_code():
    assert game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert display_code(game_code("streams", "7KQ2M9XD")) == "P2QP-HGPH"


@pytest.mark.parametrize("text, canonical", [
    ("straße-7", "STRAE7"), ("7kq2-m9xd", "7KQ2M9XD"), (" 7KQ2 M9XD ", "7KQ2M9XD"), ("1", "1"), ("a" * 32, "A" * 32),
])
def test_canonical_seed(text, canonical):
    assert canonical_seed(text) == canonical


@pytest.mark.parametrize("text", ["", "---", "ßøé", "a" * 33])
def test_bad_seeds_are_input_errors(text):
    with pytest.raises(InputError, match="seed"):
        canonical_seed(text)


def test_generated_seeds_use_the_alphabet_and_are_never_called_weak():
    seeds = {generate_seed() for _ in range(2000)}
    assert len(seeds) == 2000
    assert all(re.fullmatch(f"[{ALPHABET}]{{14}}", s) for s in seeds)
    assert all(canonical_seed(s) == s and derivation(s) == 2 for s in seeds)
    assert all(seed_weakness(s) is None and seed_warning(s) is None and seed_note(s) is None for s in seeds)
    assert all(canonical_seed(display_code(s).lower()) == s for s in seeds)  # shown, then typed in any case


# Derivation 2 (seeds of 9-32 characters): the full code commits to the seed; the game code is its start.
NEW = "7KQ2M9XDA3BCEF"
NEW_FULL = "8QEKCX96P2MZY2ZFVDQ2NTTXETB"


def test_vector_derivation_2_full_code_and_game_code():
    assert list(itertools.islice(words("commit/streams", NEW), 3)) == [
        9441559886418449243, 4935441323536541249, 7173137549048644337]
    assert full_code("streams", NEW) == NEW_FULL
    assert game_code("streams", NEW) == NEW_FULL[:8] == "8QEKCX96"
    assert full_code("streetcar", NEW) == "DD9HTW78P75HTQFDHYPGP4APSYP"
    assert full_code("sequence", NEW) == "XEFSGHTM2W227NBS359JTXBYKCZ"
    assert display_code(NEW) == "7KQ2-M9XD-A3B-CEF" and canonical_seed("7kq2-m9xd-a3b-cef") == NEW
    assert display_code(NEW_FULL) == "8QEK-CX96"  # people read the game code the full code begins with


def test_vector_derivation_2_draws_are_made_as_before():
    expected = "11 24 25 10 21 12 8 9 26 19 5 18 11 14 15 28 17 29 20 6"
    assert " ".join(map(tile_text, draw(NEW))) == expected


def test_vector_derivation_1_is_kept_for_short_seeds():
    assert derivation("7KQ2M9XD") == derivation("1") == 1 and derivation("7KQ2M9XDA") == 2
    assert full_code("streams", "7KQ2M9XD") == game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert old_game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert game_code("streams", "X" * 32) != old_game_code("streams", "X" * 32)  # long typed seeds: derivation 2


def test_a_full_code_binds_its_seed():
    assert code_mismatch("streams", NEW, NEW_FULL) is None
    assert code_mismatch("streams", NEW, NEW_FULL[:8]) is None
    other = "7KQ2M9XDA3BCEG"
    assert "were not printed with this seed" in code_mismatch("streams", other, NEW_FULL)
    assert "has game code" in code_mismatch("streams", other, NEW_FULL[:8])
    assert code_mismatch("streetcar", NEW, NEW_FULL) is not None  # another game's code
    assert "too few to have one" in code_mismatch("streams", "7KQ2M9XD", NEW_FULL)
    assert "expected a game code of 8" in code_mismatch("streams", NEW, NEW_FULL[:12])


def test_an_old_code_still_checks():
    assert code_mismatch("streams", "7KQ2M9XD", "P2QPHGPH") is None
    assert code_mismatch("streams", "7KQ2M9XE", "P2QPHGPH") is not None
    # a long seed typed before codes had two derivations: its sheets carry the code of derivation 1
    assert code_mismatch("streams", "X" * 32, old_game_code("streams", "X" * 32)) is None


@given(st.text(alphabet=ALPHABET, min_size=9, max_size=32), st.text(alphabet=ALPHABET, min_size=9, max_size=32))
def test_no_second_seed_has_the_full_code(seed, other):
    assert len(full_code("streams", seed)) == 27 and set(full_code("streams", seed)) <= set(ALPHABET)
    assert code_mismatch("streams", seed, full_code("streams", seed)) is None
    assert (code_mismatch("streams", other, full_code("streams", seed)) is None) == (other == seed)


@pytest.mark.parametrize("seed, reason", [
    ("FRIDAY", "is short (6 characters)"),
    ("7KQ2M9XD", "is short (8 characters)"),
    ("7KQ2M9XDA3BC", "is short (12 characters)"),
    ("FRIDAYNIGHTGAMES", "it has I, which"),
    ("CORRECTHORSEBATTERY", "it has O, which"),
    ("STREAMSGAMENEXTWEEK", "reads like words"),
    ("7KQ2M9XD7KQ2M9", "repeats itself"),
    ("23456789ABCDEF", "runs along the alphabet"),
    ("7KQ2MMMXDA3BCEF", "repeats itself"),
    ("ABABABABABABAB", "repeats itself"),
])
def test_weak_seeds_are_named(seed, reason):
    assert reason in seed_weakness(seed)
    assert seed_warning(seed).startswith(f"seed {display_code(seed)} ")
    assert "players could find the draw" in seed_warning(seed)
    assert "players could have found the draw" in seed_note(seed)


def test_an_old_seeds_note_says_the_code_binds_little():
    assert "other seeds have the same 8-character code" in seed_note("7KQ2M9XD")
    assert "other seeds" not in seed_note("FRIDAYNIGHTGAMES")


def test_a_strong_typed_seed_gets_no_line():
    assert seed_weakness(NEW) is None and seed_warning(NEW) is None and seed_note(NEW) is None
    assert seed_weakness("XQ7MK2P9DV4HZ3N") is None


@given(st.text(alphabet=ALPHABET + "01ILOU", min_size=1, max_size=12))
def test_every_short_seed_is_weak(seed):
    assert seed_weakness(seed) == f"is short ({len(seed)} characters)"


@given(st.text(alphabet=ALPHABET, min_size=12, max_size=31), st.sampled_from("01ILOU"))
def test_every_seed_with_a_letter_paperplay_never_draws_is_weak(seed, odd):
    assert seed_weakness(seed + odd) is not None


def test_payload_versions():
    assert qr_text("streams", {"code": "P2QPHGPH", "sheet": "3/8"}) == "PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8"
    assert qr_text("streams", {"code": NEW_FULL, "sheet": "3/8"}) == f"PAPERPLAY/2 streams code={NEW_FULL} sheet=3/8"
    assert qr_text("streams", {"code": NEW_FULL, "sheet": "3/8", "scan": "1"}) == \
        f"PAPERPLAY/2 streams code={NEW_FULL} scan=3/8"
    assert qr_text("streams", {"code": "P2QPHGPH", "sheet": "3/8", "scan": "1"}) == \
        "PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8 scan=1"
    assert qr_text("streams", {"seed": NEW, "draw": "1,2"}) == f"PAPERPLAY/2 streams seed={NEW} draw=1,2"
    assert qr_text("streams", {"seed": "7KQ2M9XD", "draw": "1,2"}) == "PAPERPLAY/1 streams seed=7KQ2M9XD draw=1,2"
    assert qr_text("streetcar", {"page": "route", "line": "1"}) == "PAPERPLAY/1 streetcar page=route line=1"


def test_reading_payloads_of_both_versions():
    assert read_payload("PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8 scan=1") == {
        "version": "1", "game": "streams", "code": "P2QPHGPH", "sheet": "3/8", "scan": "1"}
    assert read_payload(f"PAPERPLAY/2 streams code={NEW_FULL} scan=200/200") == {
        "version": "2", "game": "streams", "code": NEW_FULL, "sheet": "200/200", "scan": "1"}
    assert read_payload("PAPERPLAY/2 streams version=9 game=x")["version"] == "2"
    for other in ("", "hello", "PAPERPLAY/3 streams code=X", "PAPERPLAY/ streams", "PAPERPLAY/1x streams",
                  "https://example.org"):
        assert read_payload(other) is None


@given(st.sampled_from(["streams", "streetcar", "sequence"]), st.text(alphabet=ALPHABET, min_size=1, max_size=32),
       st.integers(1, 200), st.booleans())
def test_payloads_read_back(game, seed, n, scan):
    fields = {"code": full_code(game, seed), "sheet": f"{n}/200"} | ({"scan": "1"} if scan else {})
    read = read_payload(qr_text(game, fields))
    assert read == {"version": str(derivation(seed)), "game": game, **fields}


@given(st.integers(min_value=1, max_value=2**64), st.text(alphabet="ABC123", min_size=1, max_size=8))
def test_randbelow_stays_in_range(n, seed):
    rng = Rng("prop", seed)
    assert all(0 <= rng.randbelow(n) < n for _ in range(5))


@given(st.lists(st.integers(), max_size=40), st.text(alphabet="XYZ789", min_size=1, max_size=8))
def test_shuffle_is_a_permutation_and_reproducible(items, seed):
    once = shuffled(items, "prop", seed)
    assert sorted(once) == sorted(items)
    assert shuffled(items, "prop", seed) == once


def test_randbelow_rejects_words_at_or_above_the_limit():
    # With n = 2**63 + 1 the limit is 2**63 + 1, so about half the words are rejected; the
    # result must equal the first accepted word modulo n.
    n = 2**63 + 1
    expected = next(w for w in words("reject", "S") if w < 2**64 - (2**64 % n)) % n
    assert Rng("reject", "S").randbelow(n) == expected


def test_game_code_digits_are_base_30_of_the_first_word():
    value = next(words("code/streams", "7KQ2M9XD")) % 30**8
    digits = "".join(ALPHABET[(value // 30**k) % 30] for k in range(7, -1, -1))
    assert digits == game_code("streams", "7KQ2M9XD")
