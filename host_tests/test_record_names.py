"""The header's "names" (docs/GAME-RECORD.md): one check (firmware/cowboy/names.py)
for the record tools and the board, the same answer under CPython and the real
micropython, names written as UTF-8, carried through tools/journal.py."""
import json
import os
import subprocess
import sys

import pytest

import record
from cowboy import names as namerules
from cowboy.recordtext import header_json, json_string
import mpy
from mpy import MICROPYTHON, TOOLS, run as mpy_run

REPLAY = os.path.join(TOOLS, "replay.py")
JOURNAL = os.path.join(TOOLS, "journal.py")
INTERPRETERS = (sys.executable, MICROPYTHON)
SHOTS = '{"shot": {"pocketed": [3], "carom": 2}}\n{"shot": {}}\n'


def both(script, *args, stdin=None):
    """Run a tool under both interpreters: [(status, stdout bytes, stderr bytes)]."""
    return [(res.returncode, res.stdout, res.stderr)
            for res in mpy.both(script, *args, stdin=stdin)]


def header(names_json, players=2):
    """A header line with "names" given as JSON text, exactly as written."""
    return '{"players": %d, "names": %s}' % (players, names_json)


def replay_both(tmp_path, text):
    path = tmp_path / "r.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return both(REPLAY, path)


# ---- refused: exit 2, line 1, the reason, the same under both -----------------------
REFUSED = [
    # names not a list
    ('"Anna"', "names must be a list of strings, one per player"),
    ('{"1": "Anna"}', "names must be a list of strings, one per player"),
    ("null", "names must be a list of strings, one per player"),
    # a list of the wrong length
    ('["Anna"]', "names must list exactly 2 names (one per player), not 1"),
    ('["Anna", "Bob", "Cy"]', "names must list exactly 2 names (one per player), not 3"),
    ("[]", "names must list exactly 2 names (one per player), not 0"),
    # an element that is not a string
    ('[1, "Bob"]', "names: name 1 is not a string"),
    ('["Anna", null]', "names: name 2 is not a string"),
    ('["Anna", ["Bob"]]', "names: name 2 is not a string"),
    ('["Anna", true]', "names: name 2 is not a string"),
    # empty
    ('["", "Bob"]', "names: name 1 is empty"),
    # too long: 17 code points; 33 bytes in 11 code points; 9 emoji = 36 bytes
    ('["abcdefghijklmnopq", "Bob"]', "names: name 1 is longer than 16 characters"),
    ('["Anna", "%s"]' % ("\u20ac" * 11), "names: name 2 is longer than 32 bytes in UTF-8"),
    ('["Anna", "%s"]' % ("\U0001F600" * 9), "names: name 2 is longer than 32 bytes in UTF-8"),
    ('["Anna", "%s"]' % ("\u674e" * 11), "names: name 2 is longer than 32 bytes in UTF-8"),
    ('["Anna", "%s"]' % ("\u00e9" * 17), "names: name 2 is longer than 16 characters"),
    # control characters, escaped (raw ones are not JSON) and raw above U+007E
    (r'["An\u0000na", "Bob"]', "names: name 1 has a control character (U+0000)"),
    (r'["Anna\n", "Bob"]', "names: name 1 has a control character (U+000A)"),
    (r'["An\tna", "Bob"]', "names: name 1 has a control character (U+0009)"),
    (r'["Anna", "Bo\u001fb"]', "names: name 2 has a control character (U+001F)"),
    ('["Anna", "Bo\x7fb"]', "names: name 2 has a control character (U+007F)"),
    ('["Anna", "Bo\u0085b"]', "names: name 2 has a control character (U+0085)"),
    (r'["Anna", "Bo\u009Fb"]', "names: name 2 has a control character (U+009F)"),
    # invisible formatting characters, anywhere, raw or escaped
    ('["\u200bAnna", "Bob"]', "names: name 1 has an invisible formatting character (U+200B)"),
    ('["An\u200bna", "Bob"]', "names: name 1 has an invisible formatting character (U+200B)"),
    (r'["Anna\u200b", "Bob"]', "names: name 1 has an invisible formatting character (U+200B)"),
    ('["Anna", "Bo\u200fb"]', "names: name 2 has an invisible formatting character (U+200F)"),
    ('["Anna", "\u202aBob"]', "names: name 2 has an invisible formatting character (U+202A)"),
    ('["Anna", "Bob\u202e"]', "names: name 2 has an invisible formatting character (U+202E)"),
    ('["Anna", "B\u2060ob"]', "names: name 2 has an invisible formatting character (U+2060)"),
    ('["Anna", "B\u2069ob"]', "names: name 2 has an invisible formatting character (U+2069)"),
    ('["\ufeffAnna", "Bob"]', "names: name 1 has an invisible formatting character (U+FEFF)"),
    ('["Anna", "Bob\u00ad"]', "names: name 2 has an invisible formatting character (U+00AD)"),
    (r'["Anna", "B\u061Cob"]', "names: name 2 has an invisible formatting character (U+061C)"),
    ('["\u3164", "Bob"]', "names: name 1 has an invisible formatting character (U+3164)"),
    (r'["Anna", "Bob\udb40\udc41"]',
     "names: name 2 has an invisible formatting character (U+E0041)"),          # a \u pair
    ('["Anna\u2028Maria", "Bob"]',
     "names: name 1 has an invisible formatting character (U+2028)"),
    # surrogates: only as escapes (the UTF-8 of one is refused as not UTF-8)
    (r'["An\ud800na", "Bob"]', "names: name 1 has a surrogate (U+D800)"),
    (r'["Anna\uD800", "Bob"]', "names: name 1 has a surrogate (U+D800)"),
    (r'["Anna", "\udc00Bob"]', "names: name 2 has a surrogate (U+DC00)"),
    (r'["Anna", "Bob\uDFFF"]', "names: name 2 has a surrogate (U+DFFF)"),
    (r'["Anna", "\ude00\ud83d"]', "names: name 2 has a surrogate (U+DE00)"),   # wrong order
    (r'["Anna", "\ud83d\ud83d"]', "names: name 2 has a surrogate (U+D83D)"),   # two highs
    (r'["Anna", "\ud83dx"]', "names: name 2 has a surrogate (U+D83D)"),
    (r'["Anna", "\ud83d\n"]', "names: name 2 has a surrogate (U+D83D)"),
    # a space or a no-break space at either end
    ('[" Anna", "Bob"]', "names: name 1 begins with a space"),
    ('["Anna ", "Bob"]', "names: name 1 ends with a space"),
    ('["Anna", " "]', "names: name 2 begins with a space"),
    ('["\u00a0Anna", "Bob"]', "names: name 1 begins with a no-break space (U+00A0)"),
    (r'["Anna\u00a0", "Bob"]', "names: name 1 ends with a no-break space (U+00A0)"),
    # the first fault of the first bad name is the one named
    ('["Anna", "", 7]', "names must list exactly 2 names (one per player), not 3"),
    ('[" Anna", "\u200b"]', "names: name 1 begins with a space"),
    ('["abcdefghijklmnop\u200b", "Bob"]',
     "names: name 1 has an invisible formatting character (U+200B)"),
]


@pytest.mark.parametrize("names_json,reason", REFUSED)
def test_refused_names_under_both_interpreters(tmp_path, names_json, reason):
    got = replay_both(tmp_path, header(names_json) + "\n" + SHOTS)
    assert got[0] == got[1], got
    status, out, err = got[0]
    assert status == 2 and out == b""
    assert err.decode() == "replay: line 1: %s\n" % reason


def test_refused_names_in_process():
    for names_json, reason in REFUSED:
        with pytest.raises(record.RecordError) as e:
            record.replay([header(names_json).encode("utf-8", "surrogatepass")])
        assert str(e.value) == "line 1: " + reason


def test_encoded_surrogate_and_raw_controls_are_refused_before_names(tmp_path):
    """A surrogate's own UTF-8 bytes are not UTF-8; a raw control character in a
    string is not JSON: line 1 either way, the same under both."""
    for text, reason in ((b'{"players": 2, "names": ["A\xed\xa0\x80", "B"]}\n',
                          "not valid UTF-8"),
                         (b'{"players": 2, "names": ["A\tB", "B"]}\n', "malformed JSON")):
        path = tmp_path / "r.jsonl"
        path.write_bytes(text)
        got = both(REPLAY, path)
        assert got[0] == got[1] == (2, b"", ("replay: line 1: %s\n" % reason).encode())


# ---- accepted: the state carries them, written as UTF-8 ----------------------------
ACCEPTED = [
    ["Anna", "Bob"],
    ["Zo\u00eb", "Jos\u00e9 Mar\u00eda"],                       # accents, an inner space
    ["\u674e\u5c0f\u9f99", "\u5c71\u7530 \u592a\u90ce"],       # CJK, an inner space
    ["\U0001F600" * 8, "\U0001F3B1 Ben"],                       # emoji: 8 x 4 = 32 bytes
    ["abcdefghijklmnop", "\u00e9" * 16],                       # 16 code points, 32 bytes
    ["\u674e" * 10 + "ab", "x"],                               # 32 bytes, 12 code points
    ["Anna", "Anna"],                                           # two players may share one
    ["Anna\u00a0Maria", "O'Neil"],                              # an inner no-break space
    ['Say "hi"', "back\\slash"],                                # escaped in JSON
    ["=1+1", "@x"],                                              # text, whatever it looks like
    ["-", "\u2027"],                                             # a hyphenation point
]


@pytest.mark.parametrize("names", ACCEPTED)
def test_accepted_names_are_in_the_state_as_utf8(tmp_path, names):
    text = header(json.dumps(names, ensure_ascii=False)) + "\n" + SHOTS
    got = replay_both(tmp_path, text)
    assert got[0] == got[1], got
    status, out, err = got[0]
    assert status == 0 and err == b"", err
    state = json.loads(out.decode("utf-8"))
    assert state["names"] == names
    assert list(state)[-1] == "names"
    assert b"\\u" not in out                                    # raw UTF-8, no escapes
    for n in names:
        assert json.dumps(n, ensure_ascii=False).encode() in out
    plain = replay_both(tmp_path, '{"players": 2}\n' + SHOTS)[0][1]
    assert out == plain[:-2] + b', "names": ' + json.dumps(
        names, ensure_ascii=False).encode() + b"}\n"


def test_escaped_names_read_as_the_characters(tmp_path):
    """JSON escapes, a surrogate pair included, give the same names (and the same
    output) as the characters written raw."""
    raw = replay_both(tmp_path, header('["\U0001F600 Zo\u00eb", "A\\"B"]') + "\n" + SHOTS)
    esc = replay_both(tmp_path, header(r'["\ud83d\ude00 Zo\u00EB", "A\u0022B"]') + "\n" + SHOTS)
    assert raw[0] == raw[1] == esc[0] == esc[1]
    assert raw[0][0] == 0
    assert json.loads(raw[0][1])["names"] == ["\U0001F600 Zo\u00eb", 'A"B']
    # one code point: 16 of them fit (16 pairs as escapes = 64 bytes in the line)
    full = replay_both(tmp_path, header('["%s", "x"]' % (r"\ud83d\ude00" * 8)) + "\n")
    assert full[0] == full[1] and full[0][0] == 0


def test_names_only_when_given_and_with_trace(tmp_path):
    plain = replay_both(tmp_path, '{"players": 2}\n' + SHOTS)
    assert plain[0] == plain[1] and b"names" not in plain[0][1]
    path = tmp_path / "t.jsonl"
    path.write_text(header('["Zo\u00eb", "\u674e"]') + "\n" + SHOTS, encoding="utf-8")
    got = both(REPLAY, "--trace", path)
    assert got[0] == got[1]
    lines = got[0][1].decode().splitlines()
    assert len(lines) == 2 and all(json.loads(x)["names"] == ["Zo\u00eb", "\u674e"]
                                   for x in lines)


def test_other_header_keys_and_names_together():
    play, _ = record.read_record(['{"names": ["B", "C", "A"], "rules": ["take_as_lies"], '
                                  '"opener": 3, "players": 3}'])
    assert (play.players, play.opener, play.names) == (3, 2, ["B", "C", "A"])
    assert record.read_header('{"players": 2}') == (2, 0, 0, None)
    assert record.parse_header('{"players": 2, "names": ["a", "b"]}') == (2, 0, 0)


# ---- the one check, the same under both interpreters -------------------------------
# code points of names; the expected answers written out here, not computed
CHECK_CASES = [
    ([0x41], None),
    ([], "is empty"),
    ([0x20, 0x41], "begins with a space"),
    ([0x41, 0x20], "ends with a space"),
    ([0xA0], "begins with a no-break space (U+00A0)"),
    ([0x41, 0xA0], "ends with a no-break space (U+00A0)"),
    ([0x41, 0x20, 0x42], None),
    ([0x41, 0xA0, 0x42], None),
    ([0x41, 0x3000], None),                 # an ideographic space is not refused
    ([0x3000, 0x41], None),
    ([0x2003, 0x41], None),                 # nor an em space (str.strip() removes both)
    ([0x1C, 0x41], "has a control character (U+001C)"),   # strip() differs on these too
    ([0x41, 0x85], "has a control character (U+0085)"),
    ([0x7E], None),
    ([0x7F], "has a control character (U+007F)"),
    ([0x9F], "has a control character (U+009F)"),
    ([0xA1], None),
    ([0x200A], None),
    ([0x200B], "has an invisible formatting character (U+200B)"),
    ([0x200F], "has an invisible formatting character (U+200F)"),
    ([0x2010], None),
    ([0x2027], None),
    ([0x2028], "has an invisible formatting character (U+2028)"),    # line separator
    ([0x2029], "has an invisible formatting character (U+2029)"),    # paragraph separator
    ([0x202A], "has an invisible formatting character (U+202A)"),
    ([0x202E], "has an invisible formatting character (U+202E)"),
    ([0x202F], None),
    ([0x205F], None),
    ([0x2060], "has an invisible formatting character (U+2060)"),
    ([0x2069], "has an invisible formatting character (U+2069)"),
    ([0x206A], "has an invisible formatting character (U+206A)"),
    ([0x206F], "has an invisible formatting character (U+206F)"),
    ([0x2070], None),
    ([0x00AD], "has an invisible formatting character (U+00AD)"),    # soft hyphen
    ([0x061C], "has an invisible formatting character (U+061C)"),    # Arabic letter mark
    ([0x3164], "has an invisible formatting character (U+3164)"),    # Hangul filler
    ([0xE0041], "has an invisible formatting character (U+E0041)"),  # tag letter A
    ([0xD7FF], None),
    ([0xD800], "has a surrogate (U+D800)"),
    ([0xDBFF, 0xDC00], "has a surrogate (U+DBFF)"),     # a pair as two code points
    ([0xDFFF], "has a surrogate (U+DFFF)"),
    ([0xE000], None),
    ([0xFEFE], None),
    ([0xFEFF], "has an invisible formatting character (U+FEFF)"),
    ([0x10FFFF], None),
    ([0x61] * 16, None),
    ([0x61] * 17, "is longer than 16 characters"),
    ([0x7FF] * 16, None),                   # 2 bytes each: 32
    ([0x800] * 10 + [0x61, 0x61], None),    # 3 * 10 + 2 = 32
    ([0x800] * 10 + [0xA1], None),          # 30 + 2 = 32
    ([0x800] * 11, "is longer than 32 bytes in UTF-8"),            # 33
    ([0xFFFF] * 10 + [0x61, 0x61, 0x61], "is longer than 32 bytes in UTF-8"),   # 33
    ([0x10000] * 8, None),                  # 32
    ([0x10000] * 8 + [0x61], "is longer than 32 bytes in UTF-8"),  # 33
    ([0x61] * 17 + [0x20], "is longer than 16 characters"),
]


def test_check_name_cases_in_cpython():
    for cps, want in CHECK_CASES:
        assert namerules.check_name("".join(chr(c) for c in cps)) == want, cps


def test_check_the_same_under_micropython():
    code = ("from cowboy import names as N\n"
            "cases = %r\n"
            "for cps, want in cases:\n"
            "    got = N.check_name(''.join([chr(c) for c in cps]))\n"
            "    print(cps if got != want else 'ok', got)\n"
            "print(N.check(['a', 'b'], 2), N.check(['a'], 2), N.check('ab', 2))\n"
            "print(N.check(['a', 5], 2), N.check_name(b'ab'))\n" % (CHECK_CASES,))
    res = mpy_run(code=code)
    assert res.status == 0, res.err
    lines = res.lines()
    assert [x.split(" ")[0] for x in lines[:-2]] == ["ok"] * len(CHECK_CASES), lines
    assert lines[-2] == ("None names must list exactly 2 names (one per player), not 1 "
                         "names must be a list of strings, one per player")
    assert lines[-1] == "names: name 2 is not a string is not a string"


# ---- writing: UTF-8, only what JSON needs escaped ----------------------------------
def test_header_and_strings_are_written_as_utf8():
    assert json_string("Zo\u00eb \U0001F600") == '"Zo\u00eb \U0001F600"'
    assert json_string('a"b\\c') == '"a\\"b\\\\c"'
    assert json_string("a\nb\x01\x1f\x7f") == '"a\\nb\\u0001\\u001f\x7f"'
    assert json.loads(json_string("a\tb\"\\\x00\u00e9")) == "a\tb\"\\\x00\u00e9"
    h = header_json(2, 1, 0, ["Zo\u00eb", 'O"N'])
    assert h == '{"players": 2, "opener": 2, "names": ["Zo\u00eb", "O\\"N"]}'
    assert record.read_header(h) == (2, 1, 0, ["Zo\u00eb", 'O"N'])
    assert header_json(2, 0) == '{"players": 2, "opener": 1}'


# ---- the names file ------------------------------------------------------------------
def test_names_file_format():
    assert namerules.to_bytes(["Zo\u00eb", "Bob"]) == b"Zo\xc3\xab\nBob\n"
    assert namerules.from_bytes(b"Zo\xc3\xab\nBob\n", 2) == (["Zo\u00eb", "Bob"], None)
    assert namerules.from_bytes(b"Anna\nAnna\nCy\n", 3) == (["Anna", "Anna", "Cy"], None)
    for b, players, why in (
            (b"Anna\nBob", 2, "names file: does not end with a line end"),
            (b"", 2, "names file: does not end with a line end"),
            (b"Anna\n", 2, "names file: names must list exactly 2 names (one per player), "
                           "not 1"),
            (b"Anna\nBob\nCy\n", 2, "names file: names must list exactly 2 names (one per "
                                    "player), not 3"),
            (b"Anna\n\n", 2, "names file: names: name 2 is empty"),
            (b"Anna\r\nBob\n", 2, "names file: names: name 1 has a control character "
                                  "(U+000D)"),
            (b"Anna\nB\xed\xa0\x80\n", 2, "names file: not valid UTF-8"),
            (b"Anna\nB\xff\n", 2, "names file: not valid UTF-8"),
            (b"Anna\nBob \n", 2, "names file: names: name 2 ends with a space")):
        assert namerules.from_bytes(b, players) == (None, why), b


def test_names_file_the_same_under_micropython():
    code = ("from cowboy import names as N\n"
            "print(N.from_bytes(b'Zo\\xc3\\xab\\nBob\\n', 2)[0] == ['Zo\\xeb', 'Bob'])\n"
            "print(N.to_bytes(['Zo\\xeb', 'Bob']))\n"
            "print(N.from_bytes(b'Anna\\nB\\xed\\xa0\\x80\\n', 2))\n"
            "print(N.from_bytes(b'Anna\\n\\xe2\\x80\\x8bB\\n', 2))\n")
    res = mpy_run(code=code)
    assert res.status == 0, res.err
    assert res.lines() == ["True", "b'Zo\\xc3\\xab\\nBob\\n'",
                           "(None, 'names file: not valid UTF-8')",
                           "(None, 'names file: names: name 2 has an invisible formatting "
                           "character (U+200B)')"]


# ---- tools/journal.py both ways ------------------------------------------------------
NAMED = ('{"players": 3, "opener": 2, "names": ["Zo\u00eb", "\u674e\u5c0f\u9f99", '
         '"\U0001F3B1 \\"Ace\\""]}\n'
         '{"shot": {"pocketed": [3], "carom": 2}}\n{"shot": {}}\n{"undo": true}\n'
         '{"shot": {"foul": true}}\n')


@pytest.mark.parametrize("exe", INTERPRETERS, ids=("cpython", "micropython"))
def test_journal_round_trip_keeps_names(tmp_path, exe):
    src = tmp_path / "g.jsonl"
    src.write_text(NAMED, encoding="utf-8")
    res = subprocess.run([exe, JOURNAL, "to-binary", str(src), str(tmp_path / "g.bin")],
                         capture_output=True)
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert (tmp_path / "g.names").read_bytes() == (
        "Zo\u00eb\n\u674e\u5c0f\u9f99\n\U0001F3B1 \"Ace\"\n".encode())
    res = subprocess.run([exe, JOURNAL, "to-json", str(tmp_path / "g.bin")],
                         capture_output=True)
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    out = res.stdout.decode("utf-8")
    head = out.splitlines()[0]
    assert head == ('{"players": 3, "opener": 2, "names": ["Zo\u00eb", "\u674e\u5c0f\u9f99", '
                    '"\U0001F3B1 \\"Ace\\""]}')
    (tmp_path / "back.jsonl").write_bytes(res.stdout)
    a = both(REPLAY, "--trace", src)
    b = both(REPLAY, "--trace", tmp_path / "back.jsonl")
    assert a[0] == a[1] == b[0] == b[1] and a[0][0] == 0
    assert json.loads(a[0][1].splitlines()[-1])["names"][2] == '\U0001F3B1 "Ace"'
    # --names FILE, the other way and this one
    res = subprocess.run([exe, JOURNAL, "to-json", str(tmp_path / "g.bin"), "--names",
                          str(tmp_path / "g.names"), str(tmp_path / "o.jsonl")],
                         capture_output=True)
    assert res.returncode == 0 and res.stdout == b""
    assert (tmp_path / "o.jsonl").read_bytes().decode("utf-8") == out


def test_journal_names_file_kept_in_step(tmp_path):
    src = tmp_path / "g.jsonl"
    src.write_text(NAMED, encoding="utf-8")
    def run(*args, stdin=None):
        return subprocess.run([sys.executable, JOURNAL] + [str(x) for x in args],
                              input=stdin, capture_output=True)

    assert run("to-binary", src, tmp_path / "journal.bin").returncode == 0
    assert (tmp_path / "journal.names").exists()
    res = run("to-json", tmp_path)                       # the folder: a current game
    assert res.returncode == 0 and b'"names": ["Zo' in res.stdout.splitlines()[0]
    # a record without names removes the names file of the journal it replaces
    plain = tmp_path / "p.jsonl"
    plain.write_text('{"players": 3}\n{"shot": {}}\n')
    assert run("to-binary", plain, tmp_path / "journal.bin").returncode == 0
    assert not (tmp_path / "journal.names").exists()
    assert b"names" not in run("to-json", tmp_path / "journal.bin").stdout
    # explicit file; standard output alone cannot keep them: said
    res = run("to-binary", src, "--names", tmp_path / "x.names")
    assert res.returncode == 0 and (tmp_path / "x.names").exists()
    res = run("to-binary", src)
    assert res.returncode == 0 and b"names are not kept" in res.stderr
    (tmp_path / "s.bin").write_bytes(res.stdout)
    res = run("to-json", "-", "--names", tmp_path / "x.names",
              stdin=(tmp_path / "s.bin").read_bytes())
    assert res.returncode == 0 and b'"names": ["Zo' in res.stdout
    # a names file that does not fit: left out, said; one asked for and missing: exit 2
    (tmp_path / "s.names").write_bytes(b"Anna\nBob\n")           # 2 names, 3 players
    res = run("to-json", tmp_path / "s.bin")
    assert res.returncode == 0 and b"names" not in res.stdout.splitlines()[0]
    assert b"s.names: names file: names must list exactly 3 names" in res.stderr
    assert b"names left out" in res.stderr
    res = run("to-json", tmp_path / "s.bin", "--names", tmp_path / "none.names")
    assert res.returncode == 2 and b"cannot read" in res.stderr and res.stdout == b""
    # bad names in the record: refused on line 1, nothing written
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"players": 2, "names": ["Anna", "Bob "]}\n')
    got = both(JOURNAL, "to-binary", bad, tmp_path / "bad.bin")
    assert got[0] == got[1] and got[0][0] == 2
    assert got[0][2].endswith(b"line 1: names: name 2 ends with a space\n")
    assert not (tmp_path / "bad.bin").exists() and not (tmp_path / "bad.names").exists()
