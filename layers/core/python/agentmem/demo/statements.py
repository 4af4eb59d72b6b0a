"""Priya's bank statements as CSV, and the transaction analysis an agent runs on them.

Deterministic: the same month always gives the same rows. Twelve months make about 55 KB, over
the 32 KiB inline limit, so the log stores that export by reference; one month stays inline."""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass

HEADER = ("date", "description", "category", "amount_usd", "balance_usd")
# (description, category, typical amount, visits per month); amounts vary by up to +-40%.
SPENDING: tuple[tuple[str, str, float, int], ...] = (
    ("H-E-B #412 AUSTIN TX", "groceries", 74.0, 6),
    ("WHOLE FOODS MKT 10234", "groceries", 58.0, 3),
    ("TRADER JOE'S #563", "groceries", 46.0, 2),
    ("TORCHY'S TACOS", "dining", 24.0, 4),
    ("BLUE BOTTLE COFFEE", "dining", 7.5, 9),
    ("UCHI AUSTIN", "dining", 96.0, 1),
    ("SHELL OIL 5741", "transport", 44.0, 3),
    ("CAPMETRO MOBILE", "transport", 3.5, 10),
    ("UBER *TRIP", "transport", 21.0, 3),
    ("AMAZON MKTPL*2K4", "shopping", 38.0, 6),
    ("TARGET T-2189", "shopping", 52.0, 2),
    ("CVS/PHARMACY #7712", "health", 19.0, 2),
    ("AUSTIN ENERGY", "utilities", 118.0, 1),
    ("GOOGLE FIBER", "utilities", 70.0, 1),
    ("NETFLIX.COM", "subscriptions", 15.49, 1),
    ("SPOTIFY USA", "subscriptions", 11.99, 1),
    ("PELOTON MEMBERSHIP", "subscriptions", 44.0, 1),
    ("STATE FARM AUTO", "insurance", 132.0, 1),
    ("SOUTHWEST AIR", "travel", 210.0, 1),
    ("VENMO PAYMENT", "transfers", 35.0, 3),
    ("ATM WITHDRAWAL", "cash", 60.0, 1),
)
RENT = ("OAK ST APARTMENTS RENT", "housing", 2150.0)
PAYROLL = ("LUMEN HEALTH PAYROLL", "income", 3925.0)


def _month_rows(year: int, month: int, rng: random.Random, balance: float) -> tuple[list[list[str]], float]:
    dated: list[tuple[int, str, str, float]] = [(1, RENT[0], RENT[1], -RENT[2])]
    dated += [(15, PAYROLL[0], PAYROLL[1], PAYROLL[2]), (28, PAYROLL[0], PAYROLL[1], PAYROLL[2])]
    for description, category, typical, visits in SPENDING:
        for _ in range(visits):
            amount = round(typical * rng.uniform(0.6, 1.4), 2)
            dated.append((rng.randint(1, 28), description, category, -amount))
    dated.sort(key=lambda row: (row[0], row[1], row[3]))
    rows = []
    for day, description, category, amount in dated:
        balance = round(balance + amount, 2)
        rows.append(
            [f"{year}-{month:02d}-{day:02d}", description, category, f"{amount:.2f}", f"{balance:.2f}"]
        )
    return rows, balance


def statement_csv(months: list[tuple[int, int]], seed: int) -> str:
    """A checking-account export for the given (year, month)s, oldest first."""
    rng = random.Random(seed)  # noqa: S311 - sample data, not crypto
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    balance = 6400.0
    for year, month in months:
        rows, balance = _month_rows(year, month, rng, balance)
        writer.writerows(rows)
    return out.getvalue()


@dataclass(frozen=True)
class Analysis:
    rows: int
    months: int
    period: str
    net_pay_monthly: int
    spend_monthly: int
    by_category_monthly: dict[str, int]
    savings_capacity_monthly: int
    lowest_balance: float
    overdrafts: int


def analyse(csv_text: str) -> Analysis:
    """Monthly averages by category, savings capacity, and the lowest balance seen."""
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    months = sorted({r["date"][:7] for r in rows})
    n = max(1, len(months))
    pay = sum(float(r["amount_usd"]) for r in rows if r["category"] == "income")
    by_category: dict[str, float] = {}
    for r in rows:
        if r["category"] != "income":
            by_category[r["category"]] = by_category.get(r["category"], 0.0) - float(r["amount_usd"])
    spend = sum(by_category.values())
    balances = [float(r["balance_usd"]) for r in rows]
    top = sorted(by_category.items(), key=lambda kv: (-kv[1], kv[0]))[:6]
    return Analysis(
        rows=len(rows),
        months=len(months),
        period=f"{months[0]}..{months[-1]}" if months else "",
        net_pay_monthly=round(pay / n),
        spend_monthly=round(spend / n),
        by_category_monthly={k: round(v / n) for k, v in top},
        savings_capacity_monthly=round((pay - spend) / n),
        lowest_balance=min(balances, default=0.0),
        overdrafts=sum(b < 0 for b in balances),
    )
