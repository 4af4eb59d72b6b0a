"""Six scripted agents of a financial-planning team. No model: each one reads its context slice,
does deterministic work from what it read (and from the tools it has: the log API), and returns
the outputs to append. Their text is what a real agent team would write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentmem.client import MemoryClient
from agentmem.demo.reading import Context, sentence
from agentmem.demo.script import GOALS, Fact, SessionPlan
from agentmem.demo.statements import analyse
from agentmem.model.events import EventContent


@dataclass(frozen=True)
class Output:
    kind: str
    content: EventContent
    headline: str  # one line for the demo's table
    media_type: str | None = None
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Desk:
    """What an agent has at hand: the session plan, its context slice and the log API."""

    plan: SessionPlan
    context: Context
    client: MemoryClient


@dataclass(frozen=True)
class Agent:
    name: str
    role: str
    query: str
    work: Callable[[Desk], list[Output]]

    def instruction(self, plan: SessionPlan) -> str:
        text = (
            f"You are the {self.name} agent in a team that advises one retail client. {self.role} "
            "Use only the context below; say when something you need is missing."
        )
        if self.name == "intake":
            text += f"\n\nClient message, {plan.date}:\n{plan.message}"
        return text


def intake(desk: Desk) -> list[Output]:
    plan, ctx = desk.plan, desk.context
    changes = []
    for fact in plan.profile:
        on_file = [line for line in ctx.lines(fact.key) if _same_topic(line, fact)]
        if on_file and not ctx.mentions(fact.key, *fact.value.lower().split()):
            changes.append(f"{fact.key} was on file as '{sentence(on_file[0])}', now '{fact.value}'")
    profile = {
        "client": "Priya",
        "session": f"{plan.session_id}, {plan.date}, {plan.title}",
        "client_said": plan.message,
        "recorded": [f.text for f in plan.profile],
        "changes_since_last_review": changes or ["none"],
        "attachments": [f"checking-account statement, {len(plan.statement_months)} month(s), CSV"],
    }
    statement = plan.statement
    return [
        Output(
            "profile", profile, f"{len(plan.profile)} fact(s), {len(changes)} changed", facts=plan.profile
        ),
        Output("statement", statement, f"bank CSV, {len(statement.encode()) / 1000:.0f} KB", "text/csv"),
    ]


def _same_topic(line: str, fact: Fact) -> bool:
    if fact.member is None:
        return True
    return any(len(w) > 5 and w in line.lower() for w in fact.value.lower().split())


def transaction_analysis(desk: Desk) -> list[Output]:
    plan = desk.plan
    # A tool call, not prompt tokens: fetch the statement through the log API and aggregate it.
    page = desk.client.list_events(plan.session_id, agent="intake", resolve_blobs=True)
    event = next(e for e in reversed(page.items) if e.kind == "statement")
    csv_text = event.content if isinstance(event.content, str) else ""
    a = analyse(csv_text)
    blob = event.blob
    where = f"blob sha256 {blob.sha256[:12]}..., {blob.bytes:,} bytes" if blob else "inline"
    housing = round(100 * a.by_category_monthly.get("housing", 0) / max(1, a.net_pay_monthly))
    content = {
        "source": f"{plan.session_id} #{event.seq} intake/statement ({where})",
        "method": "fetched through the log API and aggregated in code; the CSV never entered a prompt",
        "period": a.period,
        "rows": a.rows,
        "net_pay_monthly_usd": a.net_pay_monthly,
        "spend_monthly_usd": a.spend_monthly,
        "top_categories_monthly_usd": a.by_category_monthly,
        "savings_capacity_monthly_usd": a.savings_capacity_monthly,
        "lowest_balance_usd": round(a.lowest_balance),
        "overdrafts": a.overdrafts,
        "summary": (
            f"Over {a.months} month(s) net pay averages ${a.net_pay_monthly:,} and spending "
            f"${a.spend_monthly:,} a month, so about ${a.savings_capacity_monthly:,} a month can be saved. "
            f"Housing takes {housing}% of net pay; {a.overdrafts or 'no'} overdrafts."
        ),
    }
    return [Output("analysis", content, f"{a.rows} rows, saves ${a.savings_capacity_monthly:,}/mo")]


EXPECTED_RETURN = {"cautious": 0.03, "balanced": 0.05, "aggressive": 0.07}


def monthly_saving(target: int, months: int, annual_return: float) -> int:
    if months <= 24 or annual_return <= 0:
        return -(-target // months)
    r = annual_return / 12
    return round(target * r / ((1 + r) ** months - 1))


def vehicle(member: str, months: int, risk: str) -> str:
    if member == "college-fund":
        return "Texas 529 plan, age-based index portfolio"
    if member == "retire-at-60":
        return "401(k) to the match, then a Roth IRA, in index funds"
    if months <= 24:
        return "high-yield savings"
    if months <= 72 or risk == "cautious":
        return "Treasury bills and a short-term bond index fund"
    return "60/40 index mix, shifting to bonds over time"


def goal_planning(desk: Desk) -> list[Output]:
    plan, ctx = desk.plan, desk.context
    risk = ctx.risk() or "cautious"
    capacity = ctx.number("savings_capacity_monthly_usd")
    rows: list[dict[str, Any]] = []
    for member in ctx.goals(plan):
        goal = GOALS[member]
        rate = 0.0 if goal.months <= 24 else EXPECTED_RETURN[risk]
        rows.append(
            {
                "for": goal.value,
                "target_usd": goal.target_usd,
                "months": goal.months,
                "monthly_usd": monthly_saving(goal.target_usd, goal.months, rate),
                "vehicle": vehicle(member, goal.months, risk),
            }
        )
    total = sum(r["monthly_usd"] for r in rows)
    fits = capacity is not None and total <= capacity
    note = (
        "Capacity not in view; ask transaction-analysis."
        if capacity is None
        else "All goals fit the monthly capacity."
        if fits
        else "Over capacity: fund the shortest horizon first and stagger the rest."
    )
    content = {
        "funding_plan": rows,
        "monthly_total_usd": total,
        "savings_capacity_usd": capacity,
        "fits_capacity": fits,
        "assumed_return": f"{EXPECTED_RETURN[risk]:.0%} a year on invested money ({risk} profile)",
        "note": note,
    }
    facts = tuple(GOALS[m].fact for m in plan.new_goals)
    return [Output("plan", content, f"{len(rows)} goal(s), ${total:,}/mo", facts=facts)]


def mortgage_payment(principal: int, rate_pct: float, months: int = 360) -> int:
    r = rate_pct / 100 / 12
    return round(principal * r / (1 - (1 + r) ** -months))


def market_context(desk: Desk) -> list[Output]:
    plan, ctx, m = desk.plan, desk.context, desk.plan.market
    text = (
        f"Market snapshot for {plan.date} (scripted figures). Fed funds {m.fed_funds}; 10-year Treasury "
        f"{m.ten_year:.2f}%; S&P 500 forward P/E {m.sp500_pe}; Nasdaq-100 {m.nasdaq_1y:+d}% over 12 "
        f"months, with seven names at {m.top7_weight}% of the index. High-yield savings pays about "
        f"{m.hysa:.2f}% and 30-year mortgages about {m.mortgage_30y:.2f}%. Theme of the quarter: "
        f"{m.headline}."
    )
    if ctx.mentions("investment_preference", "wants", "tech"):
        text += (
            " For a single-stock tech sleeve: one-name drawdowns of 30% or more happen most years, and "
            "the index is already concentrated in the same names, so size it small."
        )
    goals = ctx.goals(plan)
    if "house-down-payment" in goals:
        extra = mortgage_payment(320_000, m.mortgage_30y + 1) - mortgage_payment(320_000, m.mortgage_30y)
        text += f" For the house: one more point of mortgage rate costs about ${extra:,} a month on $320,000."
    if "baby" in goals:
        text += " Near-term baby costs belong in money-market funds, which still yield close to T-bills."
    if ctx.risk() == "cautious":
        text += f" Cash and short Treasuries pay close to {m.hysa:.2f}%, a fair home for careful money."
    return [Output("note", text, f"{m.headline}; 10y {m.ten_year:.2f}%")]


EQUITY = ("US total-market index", "international index", "individual tech stocks")
ALLOCATIONS = {
    "cautious": {"US total-market index": 20, "international index": 10, "short-term bond index": 40,
                 "Treasury bills": 20, "cash (high-yield savings)": 10},
    "balanced": {"US total-market index": 35, "international index": 15, "bond index": 35,
                 "cash (high-yield savings)": 15},
    "aggressive": {"US total-market index": 50, "international index": 20, "individual tech stocks": 10,
                   "bond index": 12, "cash (high-yield savings)": 8},
}  # fmt: skip


def recommendation(desk: Desk) -> list[Output]:
    plan, ctx = desk.plan, desk.context
    risk = ctx.risk() or "cautious"
    allocation = dict(ALLOCATIONS[risk])
    singles_ok = ctx.mentions("investment_preference", "wants", "individual")
    if "individual tech stocks" in allocation and not singles_ok:
        allocation["US total-market index"] += allocation.pop("individual tech stocks")
    goals = ctx.goals(plan)
    actions = []
    if "emergency-fund" in goals:
        actions.append("Finish the six-month emergency fund in high-yield savings before investing more.")
    if "house-down-payment" in goals:
        actions.append("Keep the house down payment out of stocks: T-bills and short bonds, own account.")
    if "baby" in goals:
        allocation["cash (high-yield savings)"] += 5
        allocation["US total-market index"] -= 5
        actions.append("Hold four months of spending in cash to cover parental leave.")
    if "individual tech stocks" in allocation:
        actions.append("Cap individual tech stocks at 10% of the portfolio and 3% per name.")
    actions.append("Automate monthly index purchases; rebalance once a year.")
    changes = [f"{key} {note}" for key, note in ctx.flagged()]
    content = {
        "allocation_pct": allocation,
        "monthly_contribution_usd": ctx.number("monthly_total_usd"),
        "actions": actions,
        "rationale": (
            f"Follows the current {risk} profile and stated preferences; market view: {plan.market.headline}."
        ),
        "needs_client_confirmation": changes,
    }
    equity = sum(allocation.get(k, 0) for k in EQUITY)
    return [Output("recommendation", content, f"{equity}% equity, {risk}")]


EQUITY_LIMIT = {"cautious": 40, "balanced": 65, "aggressive": 90}


def compliance(desk: Desk) -> list[Output]:
    plan, ctx = desk.plan, desk.context
    rec = ctx.output_of("recommendation")
    risk = ctx.risk()
    allocation = rec.get("allocation_pct", {}) if rec else {}
    equity = sum(int(allocation.get(k, 0)) for k in EQUITY)
    singles = int(allocation.get("individual tech stocks", 0))
    problems = []
    if rec is None or risk is None:
        problems.append("the recommendation or the client's risk profile is not in view")
    elif equity > EQUITY_LIMIT[risk]:
        problems.append(f"{equity}% equity exceeds the {EQUITY_LIMIT[risk]}% limit for a {risk} profile")
    if singles > 10:
        problems.append(f"individual stocks at {singles}% exceed the 10% cap")
    flagged = ctx.flagged()
    verdict = "REJECTED" if problems else "APPROVED WITH CONDITIONS" if flagged else "APPROVED"
    lines = [
        f"Compliance review {plan.session_id} ({plan.date}), verdict {verdict}.",
        f"1. Suitability. {equity}% equity against the {risk} profile, limit "
        f"{EQUITY_LIMIT.get(risk or '', 0)}%: {'FAIL' if problems else 'PASS'}.",
        f"2. Concentration. Individual stocks at {singles}% (cap 10%, 3% per name): "
        f"{'FAIL' if singles > 10 else 'PASS'}.",
        f"3. Changes of mind on file, {len(flagged)}.",
        *(
            f"   - {key} {note}. Re-profiling questionnaire and signed acknowledgment required "
            "before the first trade."
            for key, note in flagged
        ),
        *(f"   - Problem: {p}." for p in problems),
        "4. Kept for audit: this review, the recommendation and the context slice it was checked against.",
    ]
    return [Output("review", "\n".join(lines), f"{verdict}, {len(flagged)} flagged")]


TEAM = (
    Agent("intake", "Record what the client says as facts, note what changed, attach documents.",
          "client profile: risk tolerance, investment preferences, goals, income, employer, city",
          intake),
    Agent("transaction-analysis", "Analyse the client's bank statement: income, spending, savings capacity.",
          "bank statement transactions: monthly spending, net pay and savings capacity",
          transaction_analysis),
    Agent("goal-planning", "Turn the client's goals into monthly savings targets that fit the capacity.",
          "her goals with targets and horizons, and monthly savings capacity", goal_planning),
    Agent("market-context", "Summarise market conditions that matter for this client's plan.",
          "market conditions relevant to her investment preferences, goals and risk", market_context),
    Agent("recommendation", "Recommend an allocation and next actions that fit profile, goals and market.",
          "allocation that fits her risk tolerance, preferences, goals, savings plan and market view",
          recommendation),
    Agent("compliance", "Check the recommendation for suitability and flag changes the client must confirm.",
          "does the recommendation fit her risk tolerance and preferences; did she change her mind",
          compliance),
)  # fmt: skip
