"""Priya's sessions: what she tells the intake agent, the facts each session states, the market
snapshot and her bank statement.

Sessions 1-3 are the story: cautious and wary of single stocks (1), aggressive in individual tech
stocks and saving for a house (2), a baby on the way (3). Later sessions cycle deterministic
variations of a quarterly review (a raise, a new goal, a change of heart, a quiet review, growth
again), so a benchmark can run as many as it likes."""

from __future__ import annotations

from dataclasses import dataclass

from agentmem.demo.statements import statement_csv

SUBJECT = "priya"


@dataclass(frozen=True)
class Fact:
    """One fact an agent states explicitly on its event (`facts: [{key, text, value, member?}]`)."""

    key: str
    value: str
    text: str
    member: str | None = None

    def body(self) -> dict[str, str]:
        out = {"key": self.key, "text": self.text, "value": self.value}
        return {**out, "member": self.member} if self.member else out


@dataclass(frozen=True)
class Goal:
    member: str
    value: str
    text: str
    target_usd: int
    months: int
    keyword: str  # how a reader spots this goal in a rendered belief line

    @property
    def fact(self) -> Fact:
        return Fact("goal", self.value, self.text, self.member)


GOALS = {
    g.member: g
    for g in (
        Goal("emergency-fund", "six-month emergency fund", "Priya wants a six-month emergency fund.",
             27_000, 12, "emergency"),
        Goal("house-down-payment", "house down payment", "Priya is saving for a house down payment.",
             90_000, 60, "house"),
        Goal("baby", "baby", "Priya is preparing for a baby due in March 2027.", 18_000, 9, "baby"),
        Goal("college-fund", "college fund for the baby", "Priya wants a college fund for her child.",
             80_000, 216, "college"),
        Goal("retire-at-60", "retire at 60", "Priya wants to be able to retire at 60.", 2_400_000, 312,
             "retire"),
        Goal("sabbatical", "sabbatical year", "Priya wants to take a sabbatical year at 45.", 70_000, 120,
             "sabbatical"),
    )
}  # fmt: skip


@dataclass(frozen=True)
class Market:
    fed_funds: str
    ten_year: float
    sp500_pe: float
    nasdaq_1y: int
    top7_weight: int
    hysa: float
    mortgage_30y: float
    headline: str


@dataclass(frozen=True)
class SessionPlan:
    number: int
    session_id: str
    date: str
    title: str
    message: str  # what Priya tells the intake agent: the session's user input
    profile: tuple[Fact, ...]  # facts the intake agent records
    new_goals: tuple[str, ...]  # GOALS members the goal-planning agent records
    market: Market
    statement_months: tuple[tuple[int, int], ...]

    @property
    def statement(self) -> str:
        return statement_csv(list(self.statement_months), seed=self.number)


RISK = {
    level: Fact("risk_tolerance", level, text)
    for level, text in (
        ("cautious", "Priya is cautious about investment risk."),
        ("aggressive", "Priya wants to be aggressive, in individual tech stocks."),
        ("balanced", "Priya wants a balanced level of investment risk."),
    )
}
NO_SINGLE_STOCKS = Fact(
    "investment_preference",
    "dislikes individual stocks",
    "Priya dislikes individual stocks.",
    "single-stocks",
)
TECH_STOCKS = Fact(
    "investment_preference",
    "wants individual tech stocks",
    "Priya wants to hold individual tech stocks.",
    "single-stocks",
)
INDEX_FUNDS = Fact(
    "investment_preference", "likes low-cost index funds", "Priya likes low-cost index funds.", "index-funds"
)


def income(usd: int) -> Fact:
    return Fact("income", f"${usd:,} a year", f"Priya earns ${usd:,} a year.")


Beat = tuple[str, str, tuple[Fact, ...], tuple[str, ...]]  # title, message, profile facts, new goals


STORY: tuple[Beat, ...] = (
    (
        "onboarding",
        "Hi, I'm Priya, 34, a product designer at Lumen Health here in Austin; I make about $128,000 a "
        "year. I want to start investing, but carefully: I couldn't sleep if my savings fell 20%. I "
        "don't trust individual stocks, low-cost index funds feel right. First I want a real emergency "
        "fund. I've attached twelve months of my checking account.",
        (
            RISK["cautious"],
            NO_SINGLE_STOCKS,
            INDEX_FUNDS,
            Fact("city", "Austin", "Priya lives in Austin, Texas."),
            Fact("employer", "Lumen Health", "Priya works for Lumen Health as a product designer."),
            income(128_000),
        ),
        ("emergency-fund",),
    ),
    (
        "quarterly review",
        "Update from me: the emergency fund is nearly done and I got a bonus. I've been reading a lot "
        "about AI and I want to be aggressive now, with real money in individual tech stocks like "
        "NVIDIA and Microsoft. And we want to buy a house in about five years. March statement attached.",
        (RISK["aggressive"], TECH_STOCKS),
        ("house-down-payment",),
    ),
    (
        "quarterly review",
        "Big news: I'm pregnant, the baby is due in March 2027! I still want growth, but I need to plan "
        "for the baby's costs and four months of parental leave. June statement attached.",
        (Fact("dependents", "a baby due in March 2027", "Priya is expecting a baby in March 2027."),),
        ("baby",),
    ),
)
LATER_GOALS = ("college-fund", "retire-at-60", "sabbatical")


def _variation(number: int) -> Beat:
    """Session 4 onwards: five kinds of quarterly review, in turn."""
    cycle, kind = divmod(number - 4, 5)
    if kind == 0:
        usd = 128_000 + 7_000 * (cycle + 1)
        return ("review: a raise", f"I got a raise, I now make ${usd:,} a year. Nothing else changed.",
                (income(usd),), ())  # fmt: skip
    if kind == 1:
        goal = LATER_GOALS[cycle % len(LATER_GOALS)]
        return (
            "review: a new goal",
            f"I'd like to add a goal: {GOALS[goal].value}. I still like low-cost index funds.",
            (INDEX_FUNDS,),
            (goal,),
        )
    if kind == 2:
        return ("review: a change of heart",
                "Honestly, with the baby here I want less volatility. Let's go balanced.",
                (RISK["balanced"],), ())  # fmt: skip
    if kind == 3:
        return ("review: quiet", "No changes this quarter, same plan please.", (INDEX_FUNDS,), ())
    return ("review: growth again", "Markets recovered and I'm comfortable again: back to aggressive.",
            (RISK["aggressive"],), ())  # fmt: skip


def market(number: int) -> Market:
    wobble = (number * 7) % 5 - 2  # -2..2, deterministic
    return Market(
        fed_funds=f"{3.75 - 0.25 * min(number, 4):.2f}-{4.00 - 0.25 * min(number, 4):.2f}%",
        ten_year=round(4.15 - 0.05 * wobble, 2),
        sp500_pe=round(21.5 + 0.4 * wobble, 1),
        nasdaq_1y=18 + 4 * wobble,
        top7_weight=36 + (number % 4),
        hysa=round(4.10 - 0.1 * min(number, 4), 2),
        mortgage_30y=round(6.4 - 0.1 * min(number, 4) + 0.05 * wobble, 2),
        headline=("rates easing slowly", "tech leadership narrow", "valuations stretched")[number % 3],
    )


def session_plan(number: int, subject: str = SUBJECT) -> SessionPlan:
    """The plan of session `number` (1-based), dated a quarter apart from January 2026."""
    year, month = 2026 + (number - 1) // 4, 1 + 3 * ((number - 1) % 4)
    if number <= len(STORY):
        title, message, profile, goals = STORY[number - 1]
    else:
        title, message, profile, goals = _variation(number)
    if number == 1:
        months = tuple((year - 1, m) for m in range(1, 13))  # a year of history: the big export
    else:
        months = ((year, month - 1),) if month > 1 else ((year - 1, 12),)
    return SessionPlan(
        number=number,
        session_id=f"{subject}-s{number}",
        date=f"{year}-{month:02d}-13",
        title=title,
        message=message,
        profile=profile,
        new_goals=goals,
        market=market(number),
        statement_months=months,
    )
