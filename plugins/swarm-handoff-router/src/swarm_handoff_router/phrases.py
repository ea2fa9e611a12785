"""Everyday phrases of a request and the work they stand for: "poke holes in" is a critique,
"NXDOMAIN" a DNS problem. A table of general English and common tool names, not of any skill.
"""

from __future__ import annotations

import re

# Tool and language names that are also everyday English ("spring", "rust", "express", "celery")
# stand for their technical sense only beside a technical word: "spring boot", "rust crate", "a
# rails 7 app", not "in spring", "rust on the bike", "express my thanks", "celery sticks".
_TECH_NEIGHBOUR = (
    r"(?:apps?|apis?|endpoints?|routes?|servers?|backend|frontend|projects?|services?|components?|hooks?"
    r"|handlers?|code|codebase|class(?:es)?|functions?|methods?|modules?|packages?|librar(?:y|ies)|scripts?"
    r"|programs?|versions?|upgrades?|migrations?|sdk|compiler|toolchain|crates?|rewrites?|ports?|builds?|bundles?"
    r"|binar(?:y|ies)|login|pods?|containers?|heap|threads?|\d[\w.]*)"
)


def _beside(names: str, after: str = _TECH_NEIGHBOUR) -> str:
    """`names` only when a technical word follows, so an everyday word is not taken for a tool."""
    return rf"\b(?:{names})[^\S\n]*[-/]?[^\S\n]*{after}\b"


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
        r"\b(?:python|javascript|typescript|golang|php|matlab|kotlin|scala|perl|c\+\+|c#)\b|"
        + _beside("java|rust|swift|ruby|julia")
        + r"|\b(?:written|rewrit(?:e|es|ing|ten)|port(?:ed|ing)?|implement(?:ed|ing)?|coding|programming)\s+"
        r"(?:[\w'-]+\s+){0,3}(?:in|to|into)\s+(?:java|rust|swift|ruby|julia)\b",
        "code programming language",
    ),
    (
        r"\b(?:english|spanish|portuguese|french|german|japanese|chinese|mandarin|korean|italian|russian|arabic|hindi"
        r"|dutch|turkish|swedish)\b"
        # "polish the prose" is an edit: Polish the language is one spoken, translated into or from.
        r"|\b(?:in|into|to|from)\s+polish\b|\bpolish\s+(?:translat\w*|speakers?|users|customers|version|locale)\b",
        "language translate",
    ),
    (
        r"\b(?:django|vue|numpy|fastapi|next\.js|laravel|react\s*native|(?:react|express)\.?js)\b|\bruby\s+on\s+rails\b|"
        + _beside("flask|react|angular|rails|express|pandas")
        + r"|\bspring\s+(?:boot|framework|mvc|security|data|cloud|beans?|webflux|batch)\b"
        r"|\b(?:dataframe|import|using|in)\s+pandas\b|\bpandas\s+(?:dataframes?|df|series|groupby|import)\b",
        "framework library",
    ),
    (
        r"\b(?:postgres(?:ql)?|mysql|sqlite|mongo(?:db)?|dynamo\s*db|redis|mariadb)\b"
        r"|\b(?:oracle|cassandra)\s+(?:db|databases?|sql|cloud|clusters?|tables?|keyspaces?|nodes?|\d+[a-z]?)\b"
        r"|\bapache\s+cassandra\b",
        "database",
    ),
    (
        # "poetry", "cargo", "composer", "maven" and "yarn" are everyday nouns; their commands and files are not.
        r"\b(?:pip|npm|gradle|bundler|mvn|(?:cargo|composer|pyproject|package)\.(?:toml|json|lock)|poetry\.lock|yarn\.lock)\b"
        r"|\b(?:cargo|poetry|composer|yarn)\s+(?:add|install|require|update|lock|run|build|test|publish|workspaces?)\b"
        r"|\bmaven\s+(?:builds?|central|repo(?:sitory)?|dependenc(?:y|ies)|plugins?|projects?)\b",
        "package dependency",
    ),
    (
        r"\b(?:aws|gcp|azure|s3|ec2|cloudformation)\b"
        r"|\blambdas?\s+(?:handlers?|layers?|cold[- ]starts?|timeouts?|invocations?|deploy\w*)\b",
        "cloud infrastructure",
    ),
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
    (
        r"\b(?:github\s+actions|gitlab\s+ci|jenkinsfile|circleci|travis[\s-]*ci|buildkite|azure\s+pipelines)\b"
        r"|\.travis\.yml\b|\bjenkins\s+(?:jobs?|pipelines?|builds?|server|agents?|nodes?|plugins?)\b",
        "ci pipeline build",
    ),
    (r"\b(?:docker|dockerfile|podman)\b", "container image"),
    (r"\b(?:k8s|helm\s+charts?|kubectl|kustomize)\b", "kubernetes cluster"),
    (r"\b(?:terraform|pulumi|ansible|cdk)\b|\bbicep\s+(?:files?|templates?|modules?)\b", "infrastructure code"),
    (
        r"\b(?:rabbitmq|sqs|pub/?sub|sidekiq|dead[- ]letter|jetstream|apache\s+kafka)\b"
        r"|\b(?:kafka|nats)\s+(?:topics?|consumers?|producers?|brokers?|clusters?|streams?|connect|lag|partitions?"
        r"|offsets?|messages?|events?|server)\b|\b(?:consumers?|producers?|topics?)\s+(?:on|from|in)\s+kafka\b"
        r"|\bcelery\s+(?:workers?|tasks?|beat|queues?|broker|executor|\d[\w.]*)\b",
        "queue message consumer",
    ),
    (
        r"\b(?:dagster|prefect|apache\s+airflow)\b|\bdags?\b"
        r"|\bairflow\s+(?:\d[\w.]*|tasks?|scheduler|operators?|workers?|jobs?|pipelines?|ui|webserver|executor)\b"
        r"|\bdbt\s+(?:models?|run|tests?|projects?|cloud|core|macros?|seeds?|snapshots?|build)\b",
        "pipeline workflow orchestration",
    ),
    (
        r"\b(?:pytest|junit|rspec|unittest|vitest|webdriver)\b"
        r"|\b(?:cypress|playwright|selenium)\s+(?:tests?|specs?|scripts?|runs?|config|browsers?|locators?|e2e|grid)\b",
        "test",
    ),
    (
        # "to excel at", "excel in school" are the verb.
        r"(?<!\bto\s)\bexcel\b(?!\s+(?:at|in)\b)|\b(?:xlsx|google\s+sheets|vlookup|xlookup|pivot\s+tables?)\b",
        "spreadsheet",
    ),
    (r"\b(?:powerpoint|pptx|google\s+slides)\b", "slide presentation"),
    (
        r"\blatex\b(?![\s-]+(?:gloves?|allerg\w*|paint|balloons?|mattress\w*|pillows?|foam|free|condoms?)\b)"
        r"|\b(?:overleaf|bibtex|latexmk|pdflatex|xelatex)\b",
        "latex document",
    ),
    (
        r"(?-i:\bStripe\b)|\b(?:paypal|braintree|adyen|shopify)\b"
        r"|\bstripe\s+(?:api|checkout|webhooks?|payments?|accounts?|subscriptions?|dashboard|keys?|secret|live|test"
        r"|customers?|charges?|integration|events?|signatures?|connect|elements|cli)\b",
        "payment",
    ),
    (
        r"\b(?:grafana|datadog|new\s*relic|opentelemetry|otel|pagerduty|promql|alertmanager|sentry\.io|honeycomb\.io)\b"
        r"|(?-i:\bSentry\b)|\b(?:prometheus|jaeger|honeycomb|sentry)\s+(?:metrics?|alerts?|alerting|rules?|quer(?:y|ies)"
        r"|exporters?|scrape|traces?|tracing|ui|agent|collector|errors?|issues?|events?|dsn|sdk|dashboards?)\b",
        "monitoring observability metrics",
    ),
    (r"\b(?:syslog|journalctl|splunk|kibana|logstash|cloudwatch)\b", "log"),
    (
        r"\b(?:ios|android|xcode|testflight|play\s+store|swiftui|react\s+native)\b"
        r"|\bflutter\s+(?:apps?|widgets?|builds?|projects?|code|sdk|doctor|run)\b",
        "mobile app",
    ),
    (r"\b(?:pytorch|tensorflow|keras|sklearn|scikit-learn|xgboost|hugging\s*face)\b", "machine learning model"),
    (
        r"\b(?:anova|t-?tests?|chi-?squared?|mann-whitney|wilcoxon|p-?values?|spss|stata)\b",
        "statistics statistical test",
    ),
    # Tools and authorities only: an invoice, a receipt, an inbox or a calendar is a thing of every
    # kind of work ("nudge a client about an invoice" is an email), not a sign of one.
    (r"\b(?:quickbooks|xero|bookkeeping|ledger|vat|irs|hmrc)\b", "accounting finance"),
    (r"\bgmail\b", "email"),
    (r"\b(?:gcal|calendly)\b", "schedule calendar"),
    (r"\b(?:cve-\d+|dependabot|snyk|owasp|xss|csrf|sql\s+injection)\b", "vulnerability security"),
    (r"\b(?:gdpr|ccpa|hipaa|dsar)\b", "privacy compliance personal data"),
    (r"majors?\s+behind|versions?\s+behind|(?<![\d.])v?\d+(?:\.\d+)+\s+to\s+v?\d+", "upgrade version"),
    (
        # "pounds" is a weight as often as money: money when sterling, British, or beside another currency.
        r"\b(?:currency|currencies|dollars?|euros?|yen)\b|\b(?:british|uk|gb)\s+pounds?\b|\bpounds?\s+sterling\b",
        "currency",
    ),
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
