"""The question relay: how a sub-agent asks the user something through the orchestrator.

A sub-agent cannot talk to the user. When it needs a decision it first saves its progress (step
data in the session), then answers with nothing but one `<needs_user_input>` block. The
orchestrator recognises the block, asks the user, and starts the sub-agent again from scratch
with the answers; the new instance reads the saved progress and carries on. Starting afresh,
instead of resuming, keeps the hand-over explicit: everything the new instance knows is on disk
or in its prompt.

The block:

    <needs_user_input>
      <question header="Scope">
        <text>Which packages should the rename cover?</text>
        <option>Only the core</option>
        <option>The core and every plugin</option>
      </question>
    </needs_user_input>

At most three questions, each with two or three distinct options; an explicit block (rather than
spotting question marks in prose) means a rhetorical question in an analysis is never mistaken
for a request.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, Problem

TAG = "needs_user_input"
MAX_QUESTIONS = 3
MIN_OPTIONS = 2
MAX_OPTIONS = 3
_BLOCK_RE = re.compile(rf"<{TAG}\b.*?</{TAG}>", re.DOTALL)

SUB_AGENT_QUESTION_FORMAT = f"""\
IF YOU NEED A DECISION FROM THE USER:
1. Save everything you have done so far with the session's step data first; you will be started
   again from scratch and will only know what you saved.
2. Then reply with ONLY this block, nothing before or after it:
<{TAG}>
  <question header="SHORT LABEL">
    <text>One clear question.</text>
    <option>First distinct, actionable answer</option>
    <option>Second answer</option>
  </question>
</{TAG}>
Ask at most {MAX_QUESTIONS} questions, each with {MIN_OPTIONS} or {MAX_OPTIONS} options.
Ask only what you cannot settle from the code, the plan or the conventions."""

QUESTION_RELAY_HANDLER = f"""\
IF THE SUB-AGENT REPLIES WITH A <{TAG}> BLOCK:
1. Do not answer the questions yourself and do not continue the workflow yet.
2. Ask the user every question in the block, offering exactly its options (the user may also
   answer in their own words).
3. Start the sub-agent again as a NEW task (do not resume the old one), with the same
   instructions plus the user's answers and the session directory, so it reloads its saved step
   data and continues.
4. Only when the sub-agent finishes without a <{TAG}> block, carry on with the next command."""


@attrs.frozen
class Question:
    """One question of a relay block, with its options."""

    text: str
    options: tuple[str, ...]
    header: str = ""

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form (what an orchestrator passes to its ask-the-user tool)."""
        return {"header": self.header, "text": self.text, "options": list(self.options)}


@attrs.frozen
class RelayRequest:
    """The outcome of reading a sub-agent's reply: its questions (if any) and what is wrong."""

    found: bool
    questions: tuple[Question, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """Say whether the reply is a well-formed question block the orchestrator can relay."""
        return self.found and not self.problems


def _problem(message: str, hint: str | None = None) -> Problem:
    return Problem(ErrorCode.RELAY_INVALID, message, hint=hint)


def parse_relay(reply: str) -> RelayRequest:
    """Find and check a `<needs_user_input>` block in a sub-agent's reply, listing every problem."""
    blocks = _BLOCK_RE.findall(reply)
    if not blocks:
        if f"<{TAG}" in reply:
            return RelayRequest(True, problems=(_problem(f"the <{TAG}> block is not closed"),))
        return RelayRequest(False)
    problems: list[Problem] = []
    if len(blocks) > 1:
        problems.append(_problem(f"the reply holds {len(blocks)} <{TAG}> blocks; put every question in one"))
    outside = _BLOCK_RE.sub("", reply).strip()
    if outside:
        problems.append(
            _problem(
                "the reply has text outside the question block",
                hint="a reply that asks questions must contain only the block",
            )
        )
    try:
        root = ET.fromstring(blocks[0])
    except ET.ParseError as exc:
        problems.append(_problem(f"the block is not well-formed XML: {exc}", hint="escape & and < in question text"))
        return RelayRequest(True, problems=tuple(problems))
    questions = []
    elements = root.findall("question")
    if not elements:
        problems.append(_problem("the block holds no <question>"))
    if len(elements) > MAX_QUESTIONS:
        problems.append(_problem(f"{len(elements)} questions; ask at most {MAX_QUESTIONS} at a time"))
    for number, element in enumerate(elements, start=1):
        text = (element.findtext("text") or "").strip()
        options = tuple((o.text or "").strip() for o in element.findall("option"))
        if not text:
            problems.append(_problem(f"question {number} has no <text>"))
        if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            problems.append(
                _problem(f"question {number} has {len(options)} options; give {MIN_OPTIONS} to {MAX_OPTIONS}")
            )
        if any(not o for o in options):
            problems.append(_problem(f"question {number} has an empty <option>"))
        if len(set(options)) != len(options):
            problems.append(_problem(f"question {number} repeats an option; options must be distinct"))
        questions.append(Question(text, options, element.get("header", "").strip()))
    return RelayRequest(True, tuple(questions), tuple(problems))


def format_relay(questions: list[Question] | tuple[Question, ...]) -> str:
    """Write questions as a block that `parse_relay` accepts (for sub-agent scripts and tests)."""
    from xml.sax.saxutils import escape, quoteattr

    lines = [f"<{TAG}>"]
    for q in questions:
        header = f" header={quoteattr(q.header)}" if q.header else ""
        lines.append(f"  <question{header}>")
        lines.append(f"    <text>{escape(q.text)}</text>")
        lines += [f"    <option>{escape(o)}</option>" for o in q.options]
        lines.append("  </question>")
    lines.append(f"</{TAG}>")
    return "\n".join(lines)
