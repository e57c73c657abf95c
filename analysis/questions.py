"""The questions a designer can ask a run, judged against a margin (`--questions`): which are decided, and
how the report's error rate is split between them. The rest are reported as descriptions with their
intervals, outside the error rate."""

from __future__ import annotations

import difflib

from sim.core.errors import ConfigError

#: every question, in the order the verdicts are given
QUESTIONS = ("seats", "start", "ties", "length")
#: asked when --questions is not given: are the seats fair (compare: did the variant get fairer)?
DEFAULT_QUESTIONS = ("seats",)


def parse_questions(text: str | None) -> tuple[str, ...]:
    """`--questions`: a comma list of QUESTIONS, or ``all``; the default when empty. Duplicates are
    dropped and the order is QUESTIONS'. ConfigError (one line) on an unknown word, with a suggestion."""
    if text is None or not text.strip():
        return DEFAULT_QUESTIONS
    words = [w.strip().lower() for w in text.split(",")]
    if words == ["all"]:
        return QUESTIONS
    for word in words:
        if word not in QUESTIONS:
            close = difflib.get_close_matches(word, QUESTIONS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"--questions: unknown question {word!r}{hint}; known: "
                              f"{', '.join(QUESTIONS)}, or all")
    return tuple(q for q in QUESTIONS if q in words)
