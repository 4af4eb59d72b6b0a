"""The planning team's skill library, for `make demo-mcp`: the functions the goal-planning and
market-context agents work with (their real source, from agentmem.demo.agents) and the written
procedures that use them, approved so search finds them. `funding_row` depends on two others, so
fetching it brings its dependency closure."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agentmem.demo import agents
from agentmem.ports.procedural import SkillLibrary
from agentmem.procedural.model import FunctionSpec, GuidanceSpec

FUNDING_ROW = '''def funding_row(goal: Goal, risk: str) -> dict[str, Any]:
    """One goal's line of the funding plan: how much a month, and in what."""
    rate = 0.0 if goal.months <= 24 else EXPECTED_RETURN[risk]
    return {
        "for": goal.value,
        "target_usd": goal.target_usd,
        "months": goal.months,
        "monthly_usd": monthly_saving(goal.target_usd, goal.months, rate),
        "vehicle": vehicle(goal.member, goal.months, risk),
    }
'''


def _function(
    function_id: str, code: Callable[..., Any] | str, docstring: str, *, depends_on: tuple[str, ...] = ()
) -> FunctionSpec:
    source = code if isinstance(code, str) else inspect.getsource(code)
    name = source.split("def ", 1)[1].split("(", 1)[0]
    signature = source.split("\n", 1)[0].removeprefix("def ").removesuffix(":")
    return FunctionSpec(
        function_id=function_id,
        name=name,
        signature=signature,
        docstring=docstring,
        implementation=source,
        depends_on=list(depends_on),
        tags=["planning"],
        author="planning-team",
    )


FUNCTIONS = (
    _function(
        "monthly_saving",
        agents.monthly_saving,
        "The monthly saving that reaches a savings target in a number of months at an expected "
        "annual return (compounded monthly); plain division for horizons of two years or less.",
    ),
    _function(
        "vehicle",
        agents.vehicle,
        "Where to keep the money for a goal: a 529 plan for college, retirement accounts for "
        "retirement, savings or Treasury bills for short horizons, an index mix for long ones.",
    ),
    _function(
        "funding_row",
        FUNDING_ROW,
        "One goal's line of a client's funding plan: the monthly saving toward its target and "
        "horizon, and the vehicle to save in, at the client's risk profile.",
        depends_on=("monthly_saving", "vehicle"),
    ),
    _function(
        "mortgage_payment",
        agents.mortgage_payment,
        "The monthly payment of a fixed-rate mortgage for a principal, a rate and a term.",
    ),
)

GUIDANCE = (
    GuidanceSpec(
        guidance_id="plan-savings-goals",
        title="Turn a client's goals into a monthly savings plan",
        content=(
            "1. Read the client's goals (target and horizon) and the savings capacity that "
            "transaction analysis found.\n"
            "2. For each goal, compute its line with `funding_row` at the client's risk profile; "
            "goals within two years earn nothing.\n"
            "3. Add up the monthly amounts. If they exceed the capacity, fund the shortest horizon "
            "first and stagger the rest; say so in the plan.\n"
            "4. State new goals as explicit facts (key `goal`, one member per goal)."
        ),
        function_ids=["funding_row"],
        tags=["planning"],
        author="planning-team",
    ),
    GuidanceSpec(
        guidance_id="house-affordability",
        title="Check that a house purchase is affordable",
        content=(
            "Price the mortgage with `mortgage_payment` at the current 30-year rate; keep housing "
            "under 28% of net pay, and the down payment in the plan as its own goal."
        ),
        function_ids=["mortgage_payment"],
        tags=["planning"],
        author="planning-team",
    ),
)


def install(library: SkillLibrary) -> tuple[int, int]:
    """Write and approve every function (dependencies first) and guidance: the operator's own
    loader, in process. Returns (functions, guidance)."""
    for spec in FUNCTIONS:
        library.put_function(spec)
        library.approve("function", spec.function_id)
    for guidance in GUIDANCE:
        library.put_guidance(guidance)
        library.approve("guidance", guidance.guidance_id)
    return len(FUNCTIONS), len(GUIDANCE)
