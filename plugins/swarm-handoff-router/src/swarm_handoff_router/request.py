"""A request as the router reads it, analysed once: what it asks for, what it rules out, the
everyday phrases it uses and the skills it calls on by name.

The skill side (tokens, stemmer, synonyms, negative triggers) is in `text`; this is the request side,
and like it, every table here is general English, not tuned to any set of skills.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import attrs

from swarm_handoff_router.text import STOPWORDS, pairs, tokenize

# Request fields and how much a word found in each counts.
QUERY_WEIGHTS: Mapping[str, float] = {"original_prompt": 1.0, "reframed_challenge": 1.0, "synthesis_summary": 0.7}
# A word an everyday phrase of the request stands for ("poke holes in" -> critique) counts like a
# word the request uses itself, discounted: 0.7 of it (0.35, 0.5, 0.7 and 0.85 measured over every
# request set together: 0.5 -> 0.7 gave +0.005 top-1 and +0.004 top-3; 0.85 more, on sets whose
# misses the phrase table was extended from, so the smaller step was taken).
IDIOM_WEIGHT = 0.7

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
    (
        r"who'?s\s+doing\s+what|action\s+items?|(?<!\d\s)(?<!\d)\bminutes\s+(?:of|from|for)\b|meeting\s+minutes"
        r"|(?:take|write\s+up|type\s+up)\s+(?:the\s+)?minutes|follow[- ]ups?|what\s+was\s+decided",
        "meeting notes action",
    ),
    (
        r"what\s+(?:they|he|she|the\s+\w+)\s+(?:actually\s+|really\s+)?wants?|what\s+done\s+looks\s+like"
        r"|how\s+we'?d\s+know\s+we'?re\s+done|acceptance\s+criteria|pin\s+down\s+what",
        "requirement scope criteria",
    ),
    (
        r"(?:is|it'?s)\s+(?:actually|really|truly)\s+(?:done|finished|complete)|before\s+you\s+(?:tell|say)"
        r"|(?:is|are)\s+(?:it|they|we)\s+(?:\w+\s+)?(?:done|finished|complete)\b"
        r"|(?:claims?|says?|said|told\s+me)\s+(?:that\s+)?(?:it'?s|they'?re|(?:\w+\s+){0,4}(?:is|are|was|were))"
        r"\s+(?:all\s+)?(?:done|finished|complete)",
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
    # Tools, services and formats people name instead of saying what kind of work it is.
    (
        r"(?-i:\b[A-Za-z]*(?:Error|Exception)\b)|\b\w+_error\b|\btraceback\b|stack\s*trace|segfault"
        r"|segmentation\s+fault|core\s+dump",
        "error debug",
    ),
    (
        r"(?:returns?|returning|gives?|giving|throws?|throwing|getting|got)\s+(?:an?\s+)?(?:intermittent\s+)?"
        r"[45]0\d\b(?!\s+[a-z]+s\b)|\b[45]\d\d\s+(?:errors?|responses?|status|codes?)\b|\b5\d\ds\b|\bhttp\s+[45]\d\d\b",
        "http server error",
    ),
    (r"\b(?:nxdomain|cname|route\s*53|nameservers?|mx\s+records?|dig\s+\+?short)\b", "dns domain record"),
    (
        r"\b(?:ssl|letsencrypt|let'?s\s+encrypt|certbot|x\.?509)\b|(?:connection|site)\s+is\s+not\s+private"
        r"|handshake\s+fail",
        "tls certificate",
    ),
    (r"\b(?:github\s+actions|gitlab\s+ci|jenkins|circleci|travis|buildkite|azure\s+pipelines)\b", "ci pipeline build"),
    (r"\b(?:docker|dockerfile|podman)\b", "container image"),
    (r"\b(?:k8s|helm\s+charts?|kubectl|kustomize)\b", "kubernetes cluster"),
    (r"\b(?:terraform|pulumi|ansible|cdk|bicep)\b", "infrastructure code"),
    (r"\b(?:kafka|rabbitmq|sqs|pub/?sub|nats|celery|sidekiq|dead[- ]letter)\b", "queue message consumer"),
    (r"\b(?:airflow|dagster|prefect|dbt)\b|\bdags?\b", "pipeline workflow orchestration"),
    (r"\b(?:pytest|junit|rspec|unittest|vitest|cypress|playwright|selenium)\b", "test"),
    (r"\b(?:excel|xlsx|google\s+sheets|vlookup|xlookup|pivot\s+tables?)\b", "spreadsheet"),
    (r"\b(?:powerpoint|pptx|google\s+slides)\b", "slide presentation"),
    (r"\b(?:latex|overleaf|bibtex|latexmk|pdflatex|xelatex)\b", "latex document"),
    (r"\b(?:stripe|paypal|braintree|adyen|shopify)\b", "payment"),
    (
        r"\b(?:grafana|prometheus|datadog|new\s*relic|opentelemetry|otel|jaeger|honeycomb|sentry|pagerduty)\b",
        "monitoring observability metrics",
    ),
    (r"\b(?:syslog|journalctl|splunk|kibana|logstash|cloudwatch)\b", "log"),
    (r"\b(?:ios|android|xcode|testflight|play\s+store|swiftui|react\s+native|flutter)\b", "mobile app"),
    (r"\b(?:pytorch|tensorflow|keras|sklearn|scikit-learn|xgboost|hugging\s*face)\b", "machine learning model"),
    (
        r"\b(?:anova|t-?tests?|chi-?squared?|mann-whitney|wilcoxon|p-?values?|spss|stata)\b",
        "statistics statistical test",
    ),
    (r"\b(?:quickbooks|xero|bookkeeping|receipts?|ledger|invoices?|vat|irs|hmrc)\b", "accounting finance"),
    (r"\b(?:gmail|inbox)\b", "email"),
    (r"\b(?:gcal|calendly|calendar)\b", "schedule calendar"),
    (r"\b(?:cve-\d+|dependabot|snyk|owasp|xss|csrf|sql\s+injection)\b", "vulnerability security"),
    (r"\b(?:gdpr|ccpa|hipaa|dsar)\b", "privacy compliance personal data"),
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
# flaky, just broken", "the sheet is already tidy", "i don't need a doc", and what it says is
# finished ("my deck is done", "slides final."): the work on those is over, so their words should not
# pull the request to the skill that makes them. A negated verb ("I can't reproduce the crash",
# "tests don't pass") rules nothing out and is left alone. What is ruled out is a few words, up to
# the next punctuation or conjunction: "I already ran the tests and the build still crashes" rules
# out the tests, not the build.
_RULED_OUT = (
    r"((?:[^\S\n]*(?!(?:and|but|so|then|because|since|while|which|though|although|yet)\b)"
    r"[^\s.,;:!?()]+){0,6})"
)
# "Ready", "written", "sorted" and "final" are left out: "the PR is ready for review", "written in
# Rust", "sorted by date", "my decision is final but critique it" name the work still to do.
_FINISHED = r"(?:done|finished|finalised|finalized|complete|completed|approved|signed\s+off)"
_REQUEST_NEGATION = re.compile(
    r"(?:(?<!\bor\s)\bnot\s+(?=(?:a|an|the|my|our|about)\b|(?!\w+(?:ing|ed)\b)\w+\s*(?:[,.;]|$))"
    r"|\b(?:do\s+not|does\s+not|don'?t|doesn'?t|don\u2019t|doesn\u2019t)\s+(?:need|want)\b(?!\s+to\b)"
    r"|\b(?:do\s+not|don'?t|don\u2019t|never)\s+use\b"
    r"|\balready\b)" + _RULED_OUT,
    re.I,
)
_REQUEST_FINISHED = re.compile(
    r"(?<![\w'\u2019-])((?:[\w'\u2019-]+[^\S\n]+)?[\w'\u2019-]+)(?=[^\S\n]+"
    r"(?:(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+|all\s+|already\s+)?"
    + _FINISHED
    + r"\b(?!\s+(?:to|for|in|by|with|except|yet)\b)|final\s*(?:[.,;!]|$)))",
    re.I,
)


# A finished thing named after one of these is a condition or a question, not something over:
# "when the build is done", "make sure the migration is complete", "check whether it is finished".
_CONDITIONS = frozenset(
    {
        "when",
        "once",
        "until",
        "till",
        "if",
        "whether",
        "sure",
        "check",
        "verify",
        "confirm",
        "decide",
        "after",
        "before",
        "unless",
        "ensure",
        "see",
    }
)
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "this", "that", "its", "their", "his", "her"})
_WORD = re.compile(r"[\w'\u2019-]+")


def split_request_negation(text: str) -> tuple[str, str]:
    """Split a request into what it asks for and what it rules out, so ruled-out words earn nothing.

    Of a finished thing only the thing is ruled out: "the migration is finished; confirm it" still
    asks about something finished.
    """
    ruled_out = [m.group(1) for m in _REQUEST_NEGATION.finditer(text)]
    asked = _REQUEST_NEGATION.sub(" ", text)

    def finished(match: re.Match[str]) -> str:
        said = {w.lower() for w in _WORD.findall(match.group(1))}
        before = [w.lower() for w in _WORD.findall(asked[max(0, match.start() - 60) : match.start()])]
        previous = next((w for w in reversed(before) if w not in _DETERMINERS), "")
        if said & _CONDITIONS or previous in _CONDITIONS:
            return match.group(0)  # "when the build is done, deploy it", "make sure the migration is complete"
        ruled_out.append(match.group(1))
        return " "

    return _REQUEST_FINISHED.sub(finished, asked), " ".join(ruled_out)


def without_exclusions(text: str) -> str:
    """The request minus what it rules out, finished things kept: "says it's done" is a phrase to read."""
    return _REQUEST_NEGATION.sub(" ", text)


# Calling on a skill by name: its words in order, joined by '-', '_', ':' or spaces ("hand it to
# decision-critic", "ask the decision critic"). A one-word name ("editor", "planner") is an ordinary
# word unless the request calls on it: after one of these verbs (an article between is fine), or
# followed by "skill".
_NAME_CUES = frozenset({"use", "run", "ask", "invoke", "call", "try", "with", "via"})
_ARTICLES = frozenset({"the", "our", "my", "a"})
_JOIN = "\x01"  # a control character: never part of a token (they are words or punctuation)
_FEW = 8  # anchors a name is checked at one by one; past that, one substring search
_NAME_TOKEN = re.compile(r"[^\W_]+|[^\w\s:-]")  # words (any script), and punctuation as its own token


@lru_cache(maxsize=4096)
def name_tokens(name: str) -> tuple[str, ...]:
    """A skill name as the tokens a request would spell it with ("node.js-helper" -> node . js helper)."""
    return tuple(_NAME_TOKEN.findall(name.casefold()))


@attrs.frozen
class Spelled:
    """A request's tokens with an index by token, so naming is one lookup per skill, not one regex."""

    tokens: tuple[str, ...]
    positions: Mapping[str, tuple[int, ...]]
    # The tokens joined by a separator no token contains: a name of several words whose every word
    # the request repeats is found by one substring search (in C) instead of a look per occurrence.
    joined: str = ""

    @classmethod
    def of(cls, text: str) -> Spelled:
        """Tokenise once; every skill of a ranking is then looked up in the same index."""
        tokens = tuple(_NAME_TOKEN.findall(text.casefold().replace(_JOIN, " ")))
        positions: dict[str, list[int]] = {}
        for index, token in enumerate(tokens):
            positions.setdefault(token, []).append(index)
        joined = _JOIN + _JOIN.join(tokens) + _JOIN
        return cls(tokens, {token: tuple(found) for token, found in positions.items()}, joined)

    def names(self, name: str) -> bool:
        """True when the request calls on the skill `name` ("use the planner", "hand it to decision-critic")."""
        words = name_tokens(name)
        if not words or (len(words) == 1 and (len(words[0]) < 2 or words[0] in STOPWORDS)):
            return False  # a skill called "a" or "the" is named by every sentence
        size = len(words)
        # Anchored on the name's rarest word in the request: a request that repeats "data" ten
        # thousand times costs "data-pipeline-audit" one look per "audit", not per "data".
        offset = min(range(size), key=lambda i: len(self.positions.get(words[i], ())))
        anchors = self.positions.get(words[offset], ())
        if size > 1 and len(anchors) > _FEW and self.joined:
            return (_JOIN + _JOIN.join(words) + _JOIN) in self.joined
        for found in anchors:
            start = found - offset
            if start < 0 or self.tokens[start : start + size] != words:
                continue
            if size > 1 or self._called(start, start + size):
                return True
        return False

    def _called(self, start: int, end: int) -> bool:
        """A one-word name counts after a calling verb ("use the planner") or before "skill"."""
        if end < len(self.tokens) and self.tokens[end] == "skill":
            return True
        before = start - 1
        if before >= 0 and self.tokens[before] in _ARTICLES:
            before -= 1
        if before < 0:
            return False
        if self.tokens[before] in _NAME_CUES:
            return True
        # "hand it to", "hand off to", "hand it off to"
        return self.tokens[before] == "to" and "hand" in self.tokens[max(0, before - 3) : before]


def names_skill(text: str, name: str) -> bool:
    """True when `text` calls on the skill `name`; `Request.names` is the same test, indexed once."""
    return Spelled.of(text).names(name)


@attrs.frozen
class Request:
    """One request, analysed once for every skill of a ranking: the scorer reads only this."""

    terms: Mapping[str, float]
    origins: Mapping[str, str]
    phrases: Mapping[tuple[str, str], float]
    spelled: Spelled
    # Where each term and phrase stands in the request: a skill that looks at only some of them
    # (a long request) still adds its points up in the one order every run.
    term_order: Mapping[str, int] = attrs.field(factory=dict)
    phrase_order: Mapping[tuple[str, str], int] = attrs.field(factory=dict)

    @classmethod
    def of(cls, synthesis: Any) -> Request:
        """Read the request fields of a synthesis; ruled-out words reach neither terms, phrases nor names."""
        terms: dict[str, tuple[float, str]] = {}
        phrases: dict[tuple[str, str], float] = {}
        asked_texts: list[str] = []
        for field, weight in QUERY_WEIGHTS.items():
            text = str(getattr(synthesis, field, "") or "")
            asked, _ruled_out = split_request_negation(text)
            asked_texts.append(asked)
            words = tokenize(asked)
            for term in words:
                if weight >= terms.get(term, (0.0, ""))[0]:
                    terms[term] = (weight, "")
            for pair in sorted(pairs(words)):  # the same order every run: float sums depend on it
                phrases[pair] = max(phrases.get(pair, 0.0), weight)
            for phrase, stand_in in idioms(without_exclusions(text)):
                for term in tokenize(stand_in):
                    if weight * IDIOM_WEIGHT > terms.get(term, (0.0, ""))[0]:
                        terms[term] = (weight * IDIOM_WEIGHT, phrase)
        return cls(
            {term: weight for term, (weight, _phrase) in terms.items()},
            {term: phrase for term, (_weight, phrase) in terms.items() if phrase},
            phrases,
            Spelled.of(" \x00 ".join(asked_texts)),  # a name cannot run from one field into the next
            term_order={term: index for index, term in enumerate(terms)},
            phrase_order={pair: index for index, pair in enumerate(phrases)},
        )

    def names(self, name: str) -> bool:
        """True when the request calls on the skill `name` in what it asks for."""
        return self.spelled.names(name)
