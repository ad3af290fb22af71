"""User names and handles (PERSON): the names people go by online, which identify as directly as a real name.

* Letters + digits: ``madnessmia21``, ``Jumper991``, ``MysteriousBob87`` (an AIM screen name). Taken when the
  letters are no common English word and no word of a version or a list ("Doom2", "Test1", "child12",
  "base64", "sum1" = "someone", "euro2004"), not a code in capitals ("CSC108", "SGD199": identifying numbers
  are codes' business), with at least 2 digits or, after a single digit, 7+ letters that are no word at all
  ("creaturething1"; not "Shrek2", nor the Malay plural "jalan2", nor pinyin "jiao3").
* After a screen-name cue: ``aim: Sk8rBoi``, ``my sn is bluedragon``, ``screen name - pogo``, ``msn name:
  Bubble``, ``IM me at x_angel_x``. After a colon or "=" any word but a function word is taken; after "is",
  "was" or a dash only one that is no common word or has a digit or "_" ("my aim is to win" stays).
* ``@handle`` (not an e-mail address: the rules take those), unless it is a common word ("@home", "@ work").
* E-mail local parts: ``madnessmia21@hotmail.com`` gives ``madnessmia21`` as well, so that a configuration
  without MAIL still removes who it is (with MAIL the whole address wins: rules are precise), and so does an
  address written out against harvesters: ``jdoe at yahoo dot com``, ``jdoe[at]gmail``. Role accounts ("info",
  "webmaster") are no person.
* Speakers of a chat log pasted into a post: ``sam: no, i never got it. sam: wha`` (a word before ": " at the
  start of a line or sentence, said at least twice, beside another speaker), not "Note:", "Mood:", "Q:".

The patterns run once over the text each, anchored on a rare character (a digit, "@", ":") or a cue, so the
cost is a few microseconds per post.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from anonymizer.recognize import word_lists
from anonymizer.recognize.frequency import word_frequency

#: A letters part this frequent as a word is a word with a number ("lily22", "Math17"), not a handle; and after
#: a weak cue ("is") a word this frequent is no handle ("my aim is good").
COMMON_FREQUENCY = 10_000
#: Function words ("to", "me", "the") are never a handle, not even after "aim:".
FUNCTION_FREQUENCY = 400_000
#: A speaker label that is an English word this frequent must be a Census name ("sam", "Dave"; not
#: "Ingredients", "counterpoint"); and if it ends like a role ("-er", "-or") it is a role ("Teller").
RARE_FREQUENCY = 100
#: A speaker label this frequent as a word is a word unless a Census name ("factoid" 93; "reibstein" 0).
SPEAKER_WORD_FREQUENCY = 50
#: Letters a handle with a single trailing digit needs (shorter ones are sequels, plurals, pinyin).
SINGLE_DIGIT_MIN_LETTERS = 7

# Words that number things rather than name a person: "room101", "route66", "top40", "win98", "ps2".
_NUMBERED_WORDS = frozenset("""
base win fat pop imap ipv utf mp ps cat sha md aes rsa ipod xbox windows office math maths chem physics bio
cs ece eecs csc news radio channel route highway hwy interstate room level gate apt suite unit flight bus
train page pg chapter ch vol volume episode ep part track disc disk cd act scene line step day week year
grade class sec pri form test exam quiz question problem lab lecture child item version ver rev release build
model type mark mk size lvl eecs ee econ psych psy engl hist phil soc stat stats comp anth biol floor block blk
lot plot euro world cup top area catch blink sum some every any
evry some1 no one every1 gear geforce radeon pentium athlon playstation nintendo gameboy doom halo quake
counterstrike spiderman shrek matrix terminator star trek battlefield warcraft diablo
""".split())
# Speakers of a transcript that are roles ("FEMALE INTERVIEWER:", "Teller:"); English words with these endings too.
_ROLES = frozenset("""
host guest caller customer waitress cashier clerk officer doctor nurse student boss mom dad mum girl boy guy man
woman lady kid child audience crowd everyone all both voice agent employee cop judge prosecutor witness
interviewee announcer narrator
""".split())
_ROLE_ENDINGS = ("er", "or", "ist", "ess", "ian", "ant", "ent")
# Laughter and the like after "aim:" ("Your most overused phrase on aol: hehe").
_LAUGHTER = re.compile(r"(?:[hj][aeiou]+)+h?|(?:l+o+l+)+z?|(?:l+m+f*a+o+)+|ro+fl|x+d+|(?:he)+|(?:ha)+")
# Characters before "@" that make it part of an address or a path, not a handle.
_NOT_BEFORE_AT = frozenset("@._-/")
# What stands where a handle would: the Blog Authorship Corpus writes "urlLink" for every link.
_NOT_HANDLES = frozenset("urllink http https www".split())
# Accounts of a role, not of a person ("info@", "webmaster at ...").
_ROLE_ACCOUNTS = frozenset("""
info contact admin administrator webmaster support sales help noreply postmaster abuse feedback office mail
news editor editors letters press service team hello jobs careers enquiries inquiries billing orders
subscribe unsubscribe list root hostmaster marketing media
""".split())
# Words before ": " that label a line, not a speaker (quiz memes, headers of a post).
_NOT_SPEAKERS = frozenset("""
me i you q a note notes ps p.s update edit mood music listening reading watching eating drinking feeling
quote question answer name age location current link re subject from to date time sent cc bcc title
lyrics chorus verse bridge intro outro gdp gnp cpi faq eta fyi bio dob sex hp mp xp str dex int wis cha lvl def
atk spd
""".split())

_HANDLE_CHARS = r"[A-Za-z0-9_.\-]"
# Every pattern starts at a rare anchor or is run only when a literal gate is in the text: Python's re scans
# fast for a literal, slowly for a class or a look-behind at every position.
# A letter (or "_") then a digit: where a handle "madnessmia21", "Dreamer_80" ends its letters.
_LETTER_DIGIT = re.compile(r"[A-Za-z_][0-9]")
_DIGITS = re.compile(r"\d{1,4}(?![\w@/\-]|\.\w)")
_LETTERS_BEFORE = re.compile(r"(?<![\w@./:#&=+\-])[A-Za-z][A-Za-z_]{2,39}$")
# The literals a screen-name cue starts with (the pattern is tried only where one of them is).
_CUE_STARTS = ("aim", "aol", "yim", "msn", "icq", "sn", "s/n", "screen", "user", "yahoo", "gamer", "xbox", "skype")
_CUE = (r"(?:aim|aol|aol im|yim|msn|icq|sn|s/n|screen ?name|screenname|user ?name|username|user id|yahoo id"
        r"|yahoo messenger|msn messenger|msn name|aim name|gamertag|gamer tag|xbox live|skype)")
_CUED = re.compile(
    rf"(?<![\w/])(?i:{_CUE})(?:\s*(?P<strong>[:=])\s*|\s+(?:is|was|=)\s+|\s+[-–]\s+|\s*(?i:is)\s*:\s*)"
    rf"['\"“‘]?(?P<handle>{_HANDLE_CHARS}{{2,39}}[A-Za-z0-9_])")
# "IM me at x_angel_x": tried after each " me " (lower case text), the verb before checked on its own.
_IM_ME = re.compile(
    rf"\s+(?:at|@|on)\s+['\"“‘]?(?P<handle>{_HANDLE_CHARS}{{2,39}}[A-Za-z0-9_])(?![@\w])")
_IM_ME_VERB = re.compile(r"\b(?i:im|aim|msn|message|add|email|e-mail|mail)$")
_AT_HANDLE = re.compile(r"@(?P<handle>[A-Za-z][A-Za-z0-9_]{1,29})(?![\w@]|\.[A-Za-z])")
_FREEMAIL = (r"hotmail|yahoo|gmail|googlemail|aol|msn|excite|lycos|earthlink|comcast|mac|live|outlook|rocketmail"
             r"|ymail|netscape|juno|sbcglobal|verizon|bellsouth|cox|optonline|mail")
_FREEMAIL_GATES = ("mail", "yahoo", "aol", "msn", "excite", "lycos", "earthlink", "comcast", "mac", "live",
                   "outlook", "netscape", "juno", "sbcglobal", "verizon", "bellsouth", "cox", "optonline")
# Where an e-mail local part ends: "@" before a domain, "(at)", "[at]", or " at " before a free-mail provider.
_TLD = r"(?:com|net|org|edu|gov|co\.uk|co|uk|ca|au|sg|my|de|fr|in|ph|nz|ie|info|biz|us)"
_DOT = r"\s*(?:\.|dot|\(dot\)|\[dot\])\s*"
# Tried at each "@", "(at)" ... and " at " (with a provider in the text).
_MAIL_AT = re.compile(
    rf"(?<=[A-Za-z0-9_])(?:@(?=[\w\-]+\.[A-Za-z]|(?i:{_FREEMAIL})\b)"
    rf"|\s*(?:\(at\)|\[at\]|\{{at\}}|<at>)\s*(?=[\w\-]+{_DOT}{_TLD}\b)"
    rf"|\s+(?i:at)\s+(?=(?i:{_FREEMAIL}){_DOT}(?i:{_TLD})\b))")
_MAIL_AT_STARTS = ("@", "(at)", "[at]", "{at}", "<at>")
_MAIL_LOCAL = re.compile(r"(?<![\w.+%'&=~\-])[A-Za-z0-9][\w.+\-]{0,62}$|(?<![\w.+%'&=~\-])[A-Za-z0-9]$")
# A capitalised word right before a speaker label makes it a heading ("Interesting Factoids:"), unless a title.
_LABEL_BEFORE = re.compile(r"\b([A-Z][A-Za-z.]*)[ ]$")
_SPEAKER_TITLES = frozenset("mr mrs ms miss dr prof sir general captain coach uncle aunt auntie officer agent".split())
_COLON = re.compile(r"[ \t]?: (?=\S)")
_SPEAKER_BEFORE = re.compile(r"(?:^|(?<=\s))(?:[A-Za-z][\w.\-]{0,24}[A-Za-z0-9_]|[A-Za-z])$")
# A turn that starts a line or follows a sentence's end (or a time stamp): "[10:05:57 PM] littlemoon_yue: no".
_TURN_START = re.compile(r"(?:^|[\n\r]|[.!?)\]][ \t]*)[ \t]*$")


@lru_cache(maxsize=100_000)
def _freq(word: str) -> int:
    return word_frequency(word.lower())


def _plausible(handle: str, *, strong: bool) -> bool:
    """A cue's handle: not a function word; after a weak cue not a common word unless it has a digit or "_"."""
    word = handle.strip("._-")
    if len(word) < 2 or not any(c.isalpha() for c in word) or word.lower() in _NOT_HANDLES \
            or _LAUGHTER.fullmatch(word.lower()):
        return False
    freq = _freq(word)
    if freq >= FUNCTION_FREQUENCY:
        return False
    return strong or any(c.isdigit() or c == "_" for c in word) or freq < COMMON_FREQUENCY


def _letters_digits(letters: str, digits: str) -> bool:
    bare = letters.strip("_")
    low = bare.lower()
    if low in _NUMBERED_WORDS or (bare.isupper() and len(bare) <= 5):
        return False
    if len(bare) < 4 and len(digits) > 2:
        return False                                  # a model number: "MPx200", "hwp800"
    if "_" not in bare and _freq(low) >= COMMON_FREQUENCY:
        return False
    if len(digits) == 1:
        return len(bare) >= SINGLE_DIGIT_MIN_LETTERS and _freq(low) == 0
    return True


def handle_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "PERSON") spans of user names and handles, sorted; they may overlap (the caller resolves)."""
    found: list[tuple[int, int, str]] = []
    for m in _LETTER_DIGIT.finditer(text) if any(digit in text for digit in "0123456789") else ():
        digits = _DIGITS.match(text, m.end() - 1)
        letters = _LETTERS_BEFORE.search(text, max(0, m.start() - 40), m.start() + 1)
        if digits is None or letters is None:
            continue
        name = letters.group()
        if text[letters.end():digits.start()] in ("", "_") and _letters_digits(name, digits.group()):
            found.append((letters.start(), digits.end(), "PERSON"))
    low = text.lower()
    if len(low) != len(text):
        low = text                                    # lower() changed the length ("İ"): offsets must hold
    for start in _positions(low, _CUE_STARTS):
        if start and low[start - 1].isalnum():
            continue                                  # "isn't", "claim"
        m = _CUED.match(text, start)
        if m is not None and _plausible(m.group("handle"), strong=m.group("strong") is not None):
            found.append((*m.span("handle"), "PERSON"))
    for start in _positions(low, (" me ",)):
        m = _IM_ME.match(text, start + 3)
        if m is not None and _IM_ME_VERB.search(text, max(0, start - 8), start) \
                and _plausible(m.group("handle"), strong=False):
            found.append((*m.span("handle"), "PERSON"))
    if "@" in text:
        for m in _AT_HANDLE.finditer(text):
            before = text[m.start() - 1] if m.start() else " "
            if before not in _NOT_BEFORE_AT and not before.isalnum() and _freq(m.group("handle")) < COMMON_FREQUENCY:
                found.append((*m.span("handle"), "PERSON"))
    starts = _positions(low, _MAIL_AT_STARTS)
    if " at " in low and any(gate in low for gate in _FREEMAIL_GATES):
        starts += _positions(low, (" at ",))
    if starts:
        found.extend(_mail_locals(text, sorted(starts)))
    if text.count(": ") >= 3:
        found.extend(_speakers(text))
    found.sort()
    return found


def _positions(low: str, literals: tuple[str, ...]) -> list[int]:
    """Where each literal occurs in the (lower-case) text."""
    out = []
    for literal in literals:
        i = low.find(literal)
        while i >= 0:
            out.append(i)
            i = low.find(literal, i + 1)
    return out


def _mail_locals(text: str, starts: list[int]) -> list[tuple[int, int, str]]:
    """Local parts of e-mail addresses, written plainly or against harvesters, that are no role account."""
    found = []
    for at in starts:
        while at > 0 and text[at - 1] in " \t":       # "jdoe (at) gmail.com"
            at -= 1
        m = _MAIL_AT.match(text, at)
        if m is None:
            continue
        local = _MAIL_LOCAL.search(text, max(0, m.start() - 64), m.start())
        if local is None:
            continue
        start, end = local.span()
        while end > start and text[end - 1] in ".+-":     # "jdoe." is no local part
            end -= 1
        word = text[start:end]
        if word.lower() not in _ROLE_ACCOUNTS and _plausible(word, strong=False):
            found.append((start, end, "PERSON"))
    return found


def _is_word(low: str) -> bool:
    """An English word, or the plural of one ("Factoids")."""
    return _freq(low) >= SPEAKER_WORD_FREQUENCY or (low.endswith("s") and _freq(low[:-1]) >= SPEAKER_WORD_FREQUENCY)


def _census_name(low: str) -> bool:
    """A first name or a surname of the US Census lists (the lexicons' word data)."""
    data = word_lists.word_data()
    return low in data.first or low in data.surnames


def _is_role(low: str) -> bool:
    """A word that names a role, not a person: "INTERVIEWER:", "Teller:", "Narrator:" in a transcript."""
    return low in _ROLES or (_freq(low) >= RARE_FREQUENCY and low.endswith(_ROLE_ENDINGS))


def _speakers(text: str) -> list[tuple[int, int, str]]:
    """Speakers of a chat log: a name before ": " said at least twice beside another speaker, where turns start
    lines or sentences; or, in a log pasted as one run of text ("... write it up sam: no, i never got it. me:
    ..."), beside another speaker who also speaks twice. Headings ("Interesting Factoids:"), roles ("FEMALE
    INTERVIEWER:") and words count as speakers but are not taken."""
    turns = []
    for m in _COLON.finditer(text):
        name = _SPEAKER_BEFORE.search(text, max(0, m.start() - 26), m.start())
        if name is None:
            continue
        start = name.start()
        if text[max(0, start - 2):start].strip() in (",", "{", ";"):
            continue                                  # "Bethesda, MD: I read the report", CSS "{ font: 75%"
        label = _LABEL_BEFORE.search(text, max(0, start - 20), start)
        heading = label is not None and label.group(1).lower().rstrip(".") not in _SPEAKER_TITLES
        turn_start = label.start() if label is not None else start      # "GENERAL REINWALD:" starts a turn
        at_start = _TURN_START.search(text, max(0, turn_start - 3), turn_start) is not None
        turns.append((name.group(), name.span(), at_start, heading))
    if len(turns) < 3:
        return []
    strict = Counter(name.lower() for name, _, at_start, _ in turns if at_start)
    loose = Counter(name.lower() for name, _, _, _ in turns)
    one_run = sum(1 for count in loose.values() if count >= 2) >= 2
    out = []
    for name, span, _, heading in turns:
        low = name.lower()
        if heading or low in _NOT_SPEAKERS or _freq(low) >= COMMON_FREQUENCY or _is_role(low) \
                or (_is_word(low) and not _census_name(low)):
            continue                                  # "Ingredients:", "counterpoint:"; "sam:" is a name
        if (strict[low] >= 2 and len(strict) >= 2) or (one_run and loose[low] >= 2):
            out.append((*span, "PERSON"))
    return out
