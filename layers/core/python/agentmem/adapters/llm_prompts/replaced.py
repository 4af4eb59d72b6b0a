"""The old value a change names, as a model is asked for it beside the new one ("we moved from
Porto to Lisbon": Lisbon, replacing Porto). Kept, it becomes the fact's `replaces`, then the
observation's and the belief provenance's, which history reads to label an earlier passage that
says the old value even when no fact recorded it (docs/extraction-rules.md). The local rules find
the same thing with phrases (`adapters/local/rules/replaced.py`).

In the schema the field is required and nullable (a union with null): OpenAI's strict mode wants
every property required, and that is how it takes an optional one. Parsing defaults it to None,
so an answer that leaves it out (a tool call under a schema the server did not enforce, a server
answering from an older schema) still reads as naming no old value. What a model gives is checked
before it is kept (`facts.replaces_refusal`); a bad old value is dropped, never its fact."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

REPLACES_RULE = (
    "- `replaces` is the earlier value the event says this value replaced, in the event's words, "
    'e.g. "Priya moved from Porto to Lisbon": value Lisbon, replaces Porto. It is null unless the '
    "event itself names the earlier value; never infer it."
)
MAX_REPLACES_CHARS = 500  # ExtractedFact.replaces' bound

Replaces = Annotated[
    str | None,
    Field(description="The earlier value the event says this one replaced, in its words, or null."),
]
"""The answer field, shared by the closed and the open extraction answers."""
