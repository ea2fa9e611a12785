"""Words of a request and of a skill: tokens, a light English stemmer, synonyms, negative triggers.

Everything here is a pure function of its text, so the router can be explained by reading it: a
contribution names the stem it matched, and the tables below are general English, never tuned to a
particular set of skills.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:\+\+|#)?")

# Function words, plus the words every skill description and request uses to talk about itself
# ("use when the user needs ...", "please help me ..."): they say nothing about the kind of work.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing don down during each either etc
    few for from further get gets got had has have having he her here hers him his how i if in into
    is it its itself just let lets me more most my myself no nor not now of off on once one only or
    other our ours out over own per please same she should so some such than that the their theirs
    them then there these they this those through to too under until up upon us very via was we
    were what whatever when where whether which while who whom why will with within without would
    you your yours yourself
    use uses used using user users skill skills invoke invoked need needs needed want wants help
    helps like thing things something someone somebody make makes way really also e g eg ie i e
    immediately agent agents tool tools""".split()  # noqa: SIM905 - a word list reads better as text
)

# Suffix rules tried longest first; the stem keeps at least MIN_STEM letters. Inflections and the
# common derivations meet: "debugging", "debugged", "debugger" -> "debug"; "organization",
# "organizing", "organize" -> "organ"; "statistics", "statistical" -> "statist".
_SUFFIXES: tuple[tuple[str, str], ...] = tuple(
    sorted(
        [
            ("ational", "ate"),
            ("ization", "ize"),
            ("isation", "ize"),
            ("fulness", "ful"),
            ("iveness", "ive"),
            ("ousness", "ous"),
            ("ations", "ate"),
            ("ation", "ate"),
            ("ators", "ate"),
            ("ator", "ate"),
            ("ities", ""),
            ("ity", ""),
            ("ically", ""),
            ("ical", ""),
            ("ics", ""),
            ("icians", ""),
            ("ician", ""),
            ("ication", "y"),
            ("ications", "y"),
            ("ysis", "yz"),
            ("yses", "yz"),
            ("ments", ""),
            ("ment", ""),
            ("ness", ""),
            ("ings", ""),
            ("ing", ""),
            ("ers", ""),
            ("er", ""),
            ("ors", ""),
            ("or", ""),
            ("ied", "y"),
            ("ies", "y"),
            ("ed", ""),
            ("ists", ""),
            ("ist", ""),
            ("isms", ""),
            ("ism", ""),
            ("ions", ""),
            ("ion", ""),
            ("ables", ""),
            ("able", ""),
            ("ibles", ""),
            ("ible", ""),
            ("al", ""),
            ("ive", ""),
            ("es", ""),
            ("s", ""),
        ],
        key=lambda rule: len(rule[0]),
        reverse=True,
    )
)
_FINAL = (("yze", "yz"), ("ize", ""), ("ise", ""), ("ate", ""), ("e", ""), ("y", "i"))
# After "-ing"/"-ed" comes off, Porter's rule puts back the "e" these endings lost ("validat" ->
# "validate"), so "validating" and "validate" meet.
_RESTORE_E = ("at", "bl", "iz", "is", "yz")
_VERBAL = frozenset({"ing", "ings", "ed"})
# Inflections come off once: a second pass only takes derivations ("cluttered" -> "clutter" -> "clutt").
_INFLECTIONS = frozenset({"s", "es", "ed", "ing", "ings", "ies", "ied"})
MIN_STEM = 3


# Words repeat: the bodies of 2,000 skills hold a few hundred thousand words but some tens of
# thousands of distinct ones, and the suffix rules were most of the time `rank --scorer router` took.
STEM_MEMO = 65_536


@lru_cache(maxsize=STEM_MEMO)
def stem(word: str) -> str:
    """Reduce a word to a stem shared by its inflections and common derivations (light, predictable)."""
    if len(word) <= MIN_STEM or word.isdigit():
        return word
    if word.endswith("ss"):  # "class", "process": not plurals
        return _final(word)
    # Two passes, so that "cluttered" -> "clutter" -> "clutt" meets "clutter" -> "clutt".
    for second in (False, True):
        for suffix, replacement in _SUFFIXES:
            if second and suffix in _INFLECTIONS:  # "choosing" -> "choos", not on to "choo"
                continue
            if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= MIN_STEM:
                word = word[: -len(suffix)] + replacement
                if suffix in _VERBAL and word.endswith(_RESTORE_E):
                    word += "e"
                break
        if word.endswith("ss"):
            break
    if len(word) > MIN_STEM + 1 and word[-1] == word[-2] and word[-1] not in "lsz":  # "debugg" -> "debug"
        word = word[:-1]
    return _final(word)


def _final(word: str) -> str:
    """Fold the endings left over ("organize"/"organ", "verify"/"verifi"), so both forms meet."""
    for suffix, replacement in _FINAL:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= MIN_STEM:
            return word[: -len(suffix)] + replacement
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case stems of the content words of `text`, in order (stopwords and 1-letter words dropped)."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if len(t) > 1 and not _stopword(t)]


def _stopword(word: str) -> bool:
    """A function word, or its plural ("ones", "others", "things")."""
    return word in STOPWORDS or (word[-1] == "s" and word[:-1] in STOPWORDS)


# General-language synonym groups (any thesaurus has them). A query word also matches the other
# members of its group, at SYNONYM_WEIGHT of an exact match, so "defect" finds a skill about bugs.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("bug", "defect", "fault", "error", "glitch", "crash", "exception", "failure", "broken"),
    ("fix", "repair", "debug", "troubleshoot", "diagnose", "resolve"),
    ("doc", "docs", "documentation", "readme", "manual", "docstring"),
    ("write", "draft", "compose", "author"),
    ("paper", "article", "publication", "manuscript", "preprint"),
    ("cost", "price", "budget", "expense", "spend", "cheap", "expensive", "afford"),
    ("verify", "validate", "check", "confirm"),
    ("review", "critique", "assess", "evaluate", "audit", "appraise"),
    ("summarize", "synthesize", "consolidate", "integrate", "combine", "merge", "digest"),
    ("repository", "repo", "codebase"),
    ("convert", "transform", "translate", "export"),
    ("statistics", "statistical", "stats"),
    ("math", "maths", "mathematics", "mathematical", "proof", "theorem"),
    ("vendor", "supplier", "seller", "manufacturer"),
    ("estimate", "approximate", "ballpark", "rough"),
    ("idea", "brainstorm", "ideation"),
    ("organize", "tidy", "clean", "declutter", "arrange", "sort"),
    ("improve", "enhance", "polish", "refine"),
    ("simulate", "simulation", "model"),
    ("cite", "citation", "reference", "source", "bibliography"),
    ("folder", "directory"),
    ("plan", "roadmap", "schedule", "milestone"),
    ("coordinate", "orchestrate", "manage", "delegate"),
    ("research", "investigate", "study", "literature"),
    ("decision", "decide", "choice", "choose", "option", "tradeoff"),
    ("requirement", "spec", "specification", "scope"),
    ("test", "testing", "unittest", "pytest"),
    ("prompt", "instruction", "system-prompt"),
    ("conversation", "chat", "session", "transcript"),
    ("slow", "performance", "speed", "fast", "latency"),
    ("security", "vulnerability", "exploit", "secure"),
    ("style", "voice", "tone"),
    ("notebook", "jupyter", "ipynb"),
    ("essay", "blog", "post"),
    ("contradiction", "inconsistency", "mismatch", "disagree", "conflict"),
    # Things software and research work is about, in the words people use for them.
    ("image", "photo", "picture", "screenshot", "png", "jpeg", "jpg", "webp", "thumbnail"),
    ("resize", "shrink", "downscale", "downsize", "compress", "crop"),
    ("translate", "translation", "localize", "localization", "i18n", "l10n"),
    ("chart", "graph", "plot", "visualization", "visualize", "diagram"),
    ("email", "mail", "inbox"),
    ("dependency", "package", "library", "lockfile"),
    ("upgrade", "update", "bump", "outdated"),
    ("regex", "regexp", "pattern"),
    ("api", "endpoint", "openapi", "swagger"),
    ("database", "db", "sql", "postgres", "postgresql", "mysql", "sqlite"),
    ("spreadsheet", "csv", "excel", "sheet", "xlsx"),
    ("container", "docker", "dockerfile"),
    ("kubernetes", "k8s", "helm", "pod"),
    ("log", "logfile", "syslog"),
    ("cron", "crontab", "nightly", "timer", "scheduled"),
    ("accessibility", "a11y", "wcag"),
    ("license", "licence", "copyleft", "gpl"),
    ("incident", "outage", "downtime", "postmortem"),
    ("commit", "squash", "rebase"),
    ("attack", "injection", "xss", "csrf", "hack", "exploit"),
    ("flaky", "intermittent", "nondeterministic", "sporadic"),
    ("refactor", "restructure", "cleanup"),
    ("profile", "profiler", "flamegraph", "hotspot", "bottleneck"),
    ("coverage", "untested"),
    ("slide", "slides", "deck", "presentation", "powerpoint"),
    ("interview", "recruiter", "hiring"),
)
SYNONYM_WEIGHT = 0.5


def _synonym_table(groups: tuple[tuple[str, ...], ...]) -> Mapping[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in groups:
        stems = {stem(w) for w in group}
        for s in stems:
            table.setdefault(s, set()).update(stems - {s})
    return {s: frozenset(others) for s, others in table.items()}


SYNONYMS: Mapping[str, frozenset[str]] = _synonym_table(SYNONYM_GROUPS)


# Negative triggers: the clause after one of these phrases names work the skill should NOT take.
# "Do NOT read the code first" is about how to run a skill, not what to route to it, so only phrases
# that speak of using the skill (or of what it is for) count.
# The runs of any text inside a trigger are bounded ({0,200}): unbounded, a trigger word repeated on
# one long line without its "for" ("never use x " * 5000) made every attempt scan to the line's end,
# quadratic time (14 s of CPU for 60 KB, now 0.1 s). No real sentence puts 200 characters between "use" and "for".
_NEGATIVE = re.compile(
    r"(?:\b(?:do\s+not|don'?t|never|avoid)\s+(?:use|invoke|trigger|call|choose|pick)\b[^.;:\n]{0,200}?"
    r"\b(?:for|when|to|on|with|if|in)\b"
    r"|\bnot\s+(?:intended\s+|meant\s+|designed\s+|suitable\s+|appropriate\s+)?for\b"
    r"|\bnot\s+when\b"
    r"|\bwrong\s+(?:skill|tool|choice)\s+for\b"
    r"|(?:^|[;.(]\s*|\bboundary\b[^;.]{0,200}?[;.-]\s*)for\b(?=[^.;]{1,120}?,?\s+(?:use|see|invoke|try)\s+[a-z0-9:_-]+))",
    re.I,
)
_CLAUSE_END = re.compile(r"[.;\n)]|\s-\s|\s—\s|—|\buse\s+(?:the\s+)?[a-z0-9:_-]+\s+instead\b", re.I)
_MAX_CLAUSE = 200
# A clause is cut at `_MAX_CLAUSE` characters, so its end is searched for only that far (plus room for
# a "use X instead" starting before the cut): searching to the text's end made each clause cost the
# rest of the text, quadratic on a long line of triggers without an end mark.
_END_WINDOW = 2 * _MAX_CLAUSE
# A body section whose heading says when not to use the skill: every line under it is negative.
_NEGATIVE_HEADING = re.compile(
    r"^#{1,6}\s.*\b(?:when\s+not|not\s+to\s+use|don'?t\s+use|do\s+not\s+use|not\s+for|anti-?patterns?\s+for\s+use)\b",
    re.I | re.M,
)
_HEADING = re.compile(r"^#{1,6}\s", re.M)

# Speed, with the very same matches: the patterns above are case-insensitive and open with `\b` or
# `^`, so the regex engine tries every alternative at every character of a long body. Every match
# of `_NEGATIVE` starts at the text's start, at a trigger word, or at ";", "." or "(" followed by
# blanks and "for"; `str.find` locates those in the lower-cased text (much faster than any scan the
# engine makes), and `_NEGATIVE` itself decides at each of them, on the original text. A character
# the engine's case folding equates with an ASCII letter although its lower case is not that letter
# (or whose lower case is longer, which would shift positions) sends the text down the plain path.
_TRIGGER_WORDS = ("do", "never", "avoid", "not", "wrong", "boundary")
_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"  # dotted I, dotless i, long s, Kelvin sign
_HEADING_ANCHOR = re.compile(r"\n#")


def _starts(lower: str) -> list[int]:
    """Every place a `_NEGATIVE` match could start in a text (given lower-cased), in order."""
    found = [0]  # `^for`
    find = lower.find
    for word in _TRIGGER_WORDS:
        at = find(word)
        while at >= 0:
            found.append(at)
            at = find(word, at + 1)
    at = find("for")
    while at >= 0:  # `[;.(]\s*for`: the mark before the blanks before "for"
        before = at
        while before and lower[before - 1].isspace():  # `\s` is `str.isspace`
            before -= 1
        if before and lower[before - 1] in ";.(":
            found.append(before - 1)
        at = find("for", at + 3)
    found.sort()
    return found


def _negative_matches(text: str) -> Iterator[re.Match[str]]:
    """Exactly `_NEGATIVE.finditer(text)`, trying the full pattern only where a match can start."""
    if not text.isascii() and any(char in text for char in _FOLDS_TO_ASCII):
        yield from _NEGATIVE.finditer(text)
        return
    match = _NEGATIVE.match
    position = 0
    for start in _starts(text.lower()):
        if start < position:
            continue
        found = match(text, start)
        if found:
            yield found
            position = found.end()


def _heading_matches(body: str) -> Iterator[re.Match[str]]:
    """Exactly `_NEGATIVE_HEADING.finditer(body)`, tried only at the lines that open with "#"."""
    match = _NEGATIVE_HEADING.match
    position = 0
    starts = itertools.chain((0,), (anchor.start() + 1 for anchor in _HEADING_ANCHOR.finditer(body)))
    for start in starts:
        if start < position:
            continue
        found = match(body, start)
        if found:
            yield found
            position = found.end()


def split_negative(text: str) -> tuple[str, list[str]]:
    """Split `text` into what it claims (negative clauses removed) and its negative clauses."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    for match in _negative_matches(text):
        if match.start() < position:
            continue
        end = _CLAUSE_END.search(text, match.end(), match.end() + _END_WINDOW)
        stop = min(end.start() if end else len(text), match.end() + _MAX_CLAUSE)
        clause = text[match.end() : stop].strip()
        if not tokenize(clause):
            continue
        kept.append(text[position : match.start()])
        clauses.append(clause)
        position = stop
    kept.append(text[position:])
    return " ".join(kept), clauses


def split_negative_sections(body: str) -> tuple[str, list[str]]:
    """Split a SKILL.md body into its positive text and the lines of its 'when not to use' sections."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    for match in _heading_matches(body):
        if match.start() < position:
            continue
        line_end = body.find("\n", match.end())
        start = len(body) if line_end < 0 else line_end + 1
        following = _HEADING.search(body, start)
        stop = following.start() if following else len(body)
        kept.append(body[position : match.start()])
        clauses.extend(line.strip(" -*\t") for line in body[start:stop].splitlines() if tokenize(line))
        position = stop
    kept.append(body[position:])
    positive, inline = split_negative("".join(kept))
    return positive, clauses + inline


# Everyday phrasings of common kinds of work, and the words a skill would use for that work: "poke
# holes in" is a critique, "figure out why" a diagnosis, "ballpark" an estimate. General English,
# written as a list of idioms for tasks, not for any particular skill.
IDIOMS: tuple[tuple[str, str], ...] = (
    (
        r"poke\s+holes?|tear\s+(?:\w+\s+){0,3}apart|pick\s+(?:\w+\s+){0,2}apart|stress[- ]test|push\s+back\s+on"
        r"|devil'?s\s+advocate|red[- ]team|shoot\s+(?:\w+\s+)?down|play\s+the\s+skeptic|find\s+the\s+flaws?",
        "critique challenge weakness adversarial assumption",
    ),
    (
        r"second\s+(?:pair|set)\s+of\s+eyes|look\s+(?:it\s+|this\s+|them\s+)?over|sanity[- ]check|once[- ]over",
        "review check",
    ),
    (
        r"figure\s+out\s+why|track\s+(?:it\s+|this\s+)?down|get\s+to\s+the\s+bottom|what'?s\s+causing|root\s+cause"
        r"|why\s+(?:it|this|is|does|do|did|are)\s+(?:\w+\s+){0,3}(?:fail|break|crash|throw)",
        "diagnose cause debug investigate",
    ),
    (
        r"think\s+(?:out\s+loud|aloud)|talk\s+(?:it\s+|this\s+|things\s+)?through|bounce\s+(?:some\s+)?ideas"
        r"|not\s+sure\s+what\s+i\s+want|kick\s+(?:some\s+)?ideas\s+around|explore\s+(?:the\s+)?idea",
        "explore discuss brainstorm dialogue",
    ),
    (
        r"think\s+(?:it\s+|this\s+)?through|think\s+(?:hard|deeply|carefully)|reason(?:ed)?\s+(?:it\s+)?(?:out|through)"
        r"|open\s+question|back\s+and\s+forth\s+on"
        r"|from\s+(?:several|different|multiple|many)\s+angles",
        "reasoning analysis question perspective",
    ),
    (
        r"(?:different|several|other|alternative|possible)\s+(?:ways|approaches|options)|what\s+are\s+(?:my|our|the)\s+"
        r"options|alternatives?\s+to",
        "solution option alternative design",
    ),
    (
        r"ballpark|back[- ]of[- ](?:the[- ])?envelope|rough\s+(?:numbers?|estimate|figures?|math)|quick\s+estimate"
        r"|order\s+of\s+magnitude",
        "estimate calculate",
    ),
    (
        r"at\s+the\s+same\s+time|in\s+parallel|simultaneously|concurrently|don'?t\s+depend\s+on\s+each\s+other",
        "parallel concurrent independent",
    ),
    (r"who'?s\s+doing\s+what|action\s+items?|minutes|follow[- ]ups?|what\s+was\s+decided", "meeting notes action"),
    (
        r"what\s+(?:they|he|she|the\s+\w+)\s+(?:actually\s+|really\s+)?wants?|what\s+done\s+looks\s+like"
        r"|how\s+we'?d\s+know\s+we'?re\s+done|acceptance\s+criteria|pin\s+down\s+what",
        "requirement scope criteria",
    ),
    (
        r"(?:is|it'?s)\s+(?:actually\s+|really\s+)?(?:done|finished|complete)|before\s+you\s+(?:tell|say)",
        "verify complete",
    ),
    (
        r"laid\s+out|find\s+my\s+way\s+around|just\s+joined|new\s+to\s+(?:this|the)\s+(?:repo|codebase|project)"
        r"|how\s+(?:is|does)\s+(?:this|the)\s+(?:repo|codebase|project)",
        "codebase architecture structure",
    ),
    (
        r"clean\s+(?:it\s+|this\s+)?up|\bmess(?:y)?\b|spaghetti|tech(?:nical)?\s+debt|hard\s+to\s+(?:read|follow|change)",
        "refactor cleanup",
    ),
    (
        r"won'?t\s+(?:build|compile|start|run)|keeps?\s+(?:crashing|failing)|throwing|stack\s*trace|traceback",
        "error debug",
    ),
    (
        r"move\s+(?:\w+\s+){0,3}from\s+\S+\s+v?\d[\w.]*\s+to|dependabot|renovate|outdated|out\s+of\s+date|bump",
        "upgrade dependency version",
    ),
    (r"in\s+(?:my|\w+'s|their|our)\s+voice|sound\s+like\s+(?:me|us|him|her)|my\s+(?:own\s+)?style", "voice style"),
    (r"(?:future|next|later)\s+sessions?|remember\s+(?:that|this)|for\s+next\s+time", "memory knowledge"),
    (
        r"which\s+(?:one\s+)?is\s+right|don'?t\s+(?:match|agree)|disagree|out\s+of\s+sync|contradict"
        r"|\bsays?\b[^.;]{0,80}\bbut\b[^.;]{0,60}\b(?:says?|does|do|is|raises|returns)\b"
        r"|\bsays?\b[^.;]{0,60}\bsays?\b",
        "inconsistency conflict mismatch contradiction agree",
    ),
    (
        r"(?:other|different)\s+(?:fields|industries|domains|disciplines|sectors)|fresh\s+(?:eyes|perspective)"
        r"|outside\s+(?:our|the|my)\s+(?:field|industry|domain)|(?:multiple|several|different)\s+(?:viewpoints|perspectives"
        r"|opinions|takes)",
        "perspective viewpoint domain analogy",
    ),
    (r"break\s+(?:it\s+|this\s+)?down|explain\s+(?:what|how|why)|walk\s+me\s+through", "explain"),
    (
        r"where\s+(?:is\s+)?(?:the\s+|all\s+the\s+)?time\s+(?:\w+\s+)?(?:goes|going|spent)|bottleneck|hot\s*spots?"
        r"|crawls|takes\s+(?:forever|ages|\d+\s+(?:minutes|hours))|laggy",
        "performance profile slow",
    ),
    (r"visual(?:i[sz]e)?\b|\bplot\b|\bgraph\b", "chart"),
    (
        r"sample\s+size|how\s+many\s+(?:samples|replicates|participants|subjects|users|mice|animals|patients)"
        r"|power\s+analysis|significan|which\s+(?:statistical\s+)?test\s+(?:should|to|is|do)|per\s+group"
        r"|real\s+(?:win|effect|difference)\s+or\s+(?:just\s+)?noise",
        "statistics statistical test",
    ),
    (
        r"what\s+(?:could|might|can|would)\s+go\s+wrong|what\s+(?:could|might)\s+break|failure\s+(?:modes?|scenarios?)"
        r"|edge\s+cases?|corner\s+cases?",
        "edge case failure scenario risk",
    ),
    (
        r"run\s+in\s+order|(?:must|has\s+to|should)\s+wait\s+(?:for|if|until)|depends?\s+on\s+(?:the\s+)?(?:output|previous)"
        r"|upstream|downstream|fails?\s+(?:silently|loudly)|silently\s+drops?",
        "pipeline dependency orchestration validation",
    ),
    (r"\b\d{1,2}\s*(?:am|pm)\b|\bnightly\b|every\s+(?:night|morning|hour|day|week)", "schedule cron"),
    (
        r"\bpattern\s+(?:to|that|for|which)\s+(?:\w+\s+)?(?:pull|match|matches|grab|grabs|extract|find|capture|catch"
        r"|validate|pick)|\bregexp?\b",
        "regex regular expression match extract",
    ),
    # Names of things stand for their kind.
    (
        r"\b(?:python|javascript|typescript|java|golang|rust|ruby|php|matlab|julia|kotlin|swift|scala|perl|c\+\+|c#)\b",
        "code programming language",
    ),
    (
        r"\b(?:english|spanish|portuguese|french|german|japanese|chinese|mandarin|korean|italian|russian|arabic|hindi"
        r"|dutch|polish|turkish|swedish)\b",
        "language translate",
    ),
    (
        r"\b(?:django|flask|react|vue|angular|rails|spring|numpy|pandas|fastapi|express|next\.js|laravel)\b",
        "framework library",
    ),
    (r"\b(?:postgres(?:ql)?|mysql|sqlite|mongo(?:db)?|dynamo(?:db)?|redis|cassandra|oracle|mariadb)\b", "database"),
    (r"\b(?:pip|npm|yarn|cargo|poetry|maven|gradle|composer|bundler)\b", "package dependency"),
    (r"\b(?:aws|gcp|azure|s3|lambda|ec2|cloudformation)\b", "cloud infrastructure"),
    (r"majors?\s+behind|versions?\s+behind|(?<![\d.])v?\d+(?:\.\d+)+\s+to\s+v?\d+", "upgrade version"),
    (r"\b(?:currency|currencies|dollars?|euros?|yen|pounds?)\b", "currency"),
    (
        r"(?:write|reply|respond)\s+(?:back\s+)?to\s+(?:a|the|this|my|our|an?)\s+(?:\w+\s+)?(?:client|customer|boss|manager"
        r"|teacher|landlord|colleague|email|message)|(?:tell|answer)\s+(?:a|the|this|my|our)\s+(?:\w+\s+){0,2}(?:client"
        r"|customer|boss|manager)|\bnote\s+to\s+(?:my|our|the|a)\b|reply\s+to",
        "email message",
    ),
)
IDIOM_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.I), words) for p, words in IDIOMS)


def idioms(text: str) -> list[tuple[str, str]]:
    """The idioms a request uses, each with the words a skill would use for that work."""
    found = []
    for pattern, words in IDIOM_PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.group(0), words))
    return found


# What a request rules out, as opposed to what it says is wrong: "it's not the database", "not
# flaky, just broken", "the sheet is already tidy", "i don't need a doc". A negated verb ("I can't
# reproduce the crash", "tests don't pass") rules nothing out and is left alone.
_REQUEST_NEGATION = re.compile(
    r"(?:\bnot\s+(?=(?:a|an|the|my|our|about)\b|\w+\s*(?:[,.;]|$))"
    r"|\b(?:do\s+not|does\s+not|don'?t|doesn'?t|don\u2019t|doesn\u2019t)\s+(?:need|want)\b"
    r"|\balready\b)"
    r"([^.,;:!?()\n]*)",
    re.I,
)


def split_request_negation(text: str) -> tuple[str, str]:
    """Split a request into what it asks for and what it rules out (the clause after an exclusion)."""
    ruled_out = [m.group(1) for m in _REQUEST_NEGATION.finditer(text)]
    return _REQUEST_NEGATION.sub(" ", text), " ".join(ruled_out)


_NAME_CUE = r"(?:use|run|ask|invoke|call|try|with|via|hand\s+(?:it\s+)?(?:off\s+)?to)\s+(?:the\s+|our\s+|my\s+|a\s+)?"


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str] | None:
    """How a request names a skill: its words in order, joined by '-', '_', ':' or spaces."""
    words = [w for w in re.split(r"[-_:\s]+", name.lower()) if w]
    if not words or not all(re.fullmatch(r"[a-z0-9]+", w) for w in words):
        return None
    spelled = r"[-_:\s]+".join(words)
    if len(words) == 1:  # "editor", "planner": an ordinary word unless the request calls on it
        return re.compile(rf"\b{_NAME_CUE}{spelled}\b|\b{spelled}\s+skill\b", re.I)
    return re.compile(rf"\b{spelled}\b", re.I)


def names_skill(text: str, name: str) -> bool:
    """True when a request calls on a skill by name ("use the planner", "hand it to decision-critic")."""
    pattern = _name_pattern(name)
    return bool(pattern and pattern.search(text))
