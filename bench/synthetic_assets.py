"""A synthetic knowledge catalogue for bench/compose.py: N assets (default 10,000) in the exact
`Asset` format and payload schemas of the sample catalogue (agentmem/demo/catalogue), a handful of
composer skills with scopes of very different sizes over it, and questions to time composes with.

The organisation is a fictional online retailer (the same business as the sample's Kestrel
Provisions, so the two catalogues can share one deployment). The hierarchy is the sample's:
integration / selection / object / detail, six integrations of ten selections each:

- `warehouse/<schema>/<table>` tables (5-40 columns, each `.../columns/<col>` a column asset),
- `wiki/<space>/<page>` pages with 2-8 `.../sections/<section>` section assets,
- `queries/<team>/<name>` saved queries over real generated tables and columns,
- `notes/<team>/<slug>` notes, `slack/<channel>/thread-<n>` threads and
  `dashboards/<area>/<name>` dashboards, which name real tables, queries and metrics.

About 3% of assets are deprecated (legacy tables with their columns, archived pages), about 10%
are readable by the `finance` principal only (finance and people data), and the rest by
`analyst` and `finance` or by `everyone`, as in the sample.

Everything is drawn from one seeded `random.Random` and no set is ever iterated: the same size,
seed and reserved paths give the same catalogue, skills and questions, byte for byte."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agentmem.compose.model import Asset, ComposerSkillSpec, Scope

DEFAULT_ASSETS = 10_000
DEFAULT_QUESTIONS = 50
SEED = 20261214

# Share of the catalogue's assets per integration (warehouse absorbs the rounding).
SHARES = {"wiki": 0.18, "queries": 0.08, "notes": 0.06, "slack": 0.05, "dashboards": 0.03}
FINANCE_ONLY = ["finance"]
ANALYSTS = ["analyst", "finance"]
EVERYONE = ["everyone"]

# -- vocabulary ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str
    example: str | int | float | bool


@dataclass(frozen=True)
class Entity:
    plural: str  # snake_case, as in table names
    singular: str  # words
    phrase: str  # what one record is
    columns: tuple[Column, ...]


# One entity a block: `entity plural|singular|what one record is`, then its own columns as
# `name|type|description|example`. The `*generic*` block holds the columns any table may carry.
# Examples `true`/`false` and numbers are typed; everything else is a string.
# The vocabulary is data, kept beside the code: bench/data/asset_vocabulary.txt.
VOCABULARY = (Path(__file__).parent / "data" / "asset_vocabulary.txt").read_text(encoding="utf-8")


def _example(text: str) -> str | int | float | bool:
    if text in ("true", "false"):
        return text == "true"
    if text.isdigit():
        return int(text)
    if text.replace(".", "", 1).isdigit():
        return float(text)
    return text


def _parse(vocabulary: str) -> tuple[tuple[Entity, ...], tuple[Column, ...]]:
    blocks: list[tuple[list[str], list[Column]]] = []
    for line in vocabulary.strip().splitlines():
        if line.startswith("entity "):
            blocks.append((line.removeprefix("entity ").split("|"), []))
        else:
            name, kind, description, example = line.split("|")
            blocks[-1][1].append(Column(name, kind, description, _example(example)))
    entities = tuple(Entity(h[0], h[1], h[2], tuple(cols)) for h, cols in blocks if h[0] != "*generic*")
    generic = next(tuple(cols) for h, cols in blocks if h[0] == "*generic*")
    return entities, generic


ENTITIES, GENERIC_COLUMNS = _parse(VOCABULARY)

METRICS: tuple[tuple[str, str, str], ...] = (
    # (slug, name, what it measures)
    ("net_revenue", "Net revenue", "order revenue after discounts and refunds, excluding tax and shipping"),
    ("gross_margin", "Gross margin", "net revenue minus landed cost of goods, as a share of net revenue"),
    ("refund_rate", "Refund rate", "refunds issued in a month over that month's net order revenue"),
    ("return_rate", "Return rate", "units returned over units shipped, by ship month"),
    ("churn_rate", "Subscription churn rate", "cancellations over subscriptions live at the month's start"),
    ("mrr", "Monthly recurring revenue", "month-end value of live subscriptions, normalised to one month"),
    ("aov", "Average order value", "net revenue per one-off order on web and app"),
    ("conversion_rate", "Conversion rate", "sessions that place an order over all sessions"),
    ("cac", "Customer acquisition cost", "paid marketing spend over new customers acquired"),
    ("ltv", "Customer lifetime value", "expected net margin of a customer over 36 months"),
    ("on_time_delivery", "On-time delivery rate", "shipments delivered by the promised date"),
    ("fill_rate", "Fill rate", "order lines shipped complete from stock on the first attempt"),
    ("inventory_turnover", "Inventory turnover", "cost of goods sold over average inventory value"),
    ("first_response_time", "First response time", "business minutes to the first agent reply"),
    ("csat", "Customer satisfaction (CSAT)", "share of survey answers rating support 4 or 5"),
    ("nps", "Net promoter score", "promoters minus detractors among survey answers"),
    ("active_customers", "Active customers", "customers with an order in 90 days or a live subscription"),
    ("retention_90d", "90-day retention", "new customers who order again within 90 days"),
    ("roas", "Return on ad spend", "attributed net revenue over paid media spend"),
    ("win_rate", "Wholesale win rate", "qualified leads that became accounts within 120 days"),
    ("dso", "Days sales outstanding", "receivables over trailing wholesale revenue, in days"),
    ("headcount", "Headcount", "full-time equivalents on payroll at month end"),
    ("payroll_cost", "Payroll cost", "gross pay, bonus, employer taxes and benefits"),
    ("ticket_backlog", "Ticket backlog", "open support tickets older than 24 hours"),
    ("email_ctr", "Email click-through rate", "unique clicks over delivered marketing emails"),
    ("promo_redemption", "Promotion redemption rate", "orders using a promotion over orders offered it"),
    ("deferred_revenue", "Deferred revenue", "billed, not yet recognised subscription and gift card revenue"),
    ("stockout_rate", "Stock-out rate", "product-days with zero sellable units"),
)

DIMENSIONS = ("channel", "region", "plan", "category", "carrier", "platform", "cohort month", "country")
TEAMS = ("data-team", "data-eng", "finance", "growth", "ops", "marketing", "product", "support", "sales")
PEOPLE = (
    "priya.raman", "sam.ortiz", "dana.kim", "lee.wong", "amara.obi", "jonas.berg", "mei.tanaka",
    "carlos.mendes", "ruth.adler", "omar.haddad", "ines.duarte", "tom.fisher",
)  # fmt: skip
REFRESH = (
    "daily at 05:00 UTC", "hourly", "every 15 minutes", "daily at 03:00 UTC",
    "weekly on Mondays at 06:00 UTC", "on the third business day of the month",
)  # fmt: skip
RULES = (
    "deduplication on the source id, keeping the latest `_loaded_at`",
    "conversion to USD at the daily rate of the local date",
    "exclusion of test records",
    "bucketing by Pacific-time date",
    "late-arriving corrections from the source",
    "removal of soft-deleted rows",
    "the current-version filter (`is_current`)",
)
CHANGES = (
    "records flagged `is_test` are dropped at staging rather than in each query",
    "the table is rebuilt nightly instead of hourly",
    "amounts are net of discounts",
    "cancelled records stay in the table with a status instead of being deleted",
    "the month key is the Pacific-time date, not the UTC timestamp",
    "internal accounts are excluded from the published figure",
    "the definition counts paused subscriptions separately",
    "the refund reason `product_recall` is reported on its own line",
)
INCIDENTS = (
    # (note title, what happened)
    ("duplicates after a resync", "a connector resync loaded duplicate rows"),
    ("stale after a failed build", "the nightly build failed and the table went stale for a day"),
    ("iOS event gap", "iOS events were missing for three days after an SDK upgrade"),
    ("flat FX rates", "a currency feed outage left exchange rates flat over a weekend"),
    ("nulls after an upstream rename", "a column renamed upstream leaked nulls into the model"),
    ("double-counted backfill", "a backfill double-counted one day of orders until it was rerun"),
    ("late records in the wrong day", "a timezone bug shifted late-evening records into the next day"),
)


def _words(snake: str) -> str:
    return snake.replace("_", " ")


def _title(snake: str) -> str:
    text = _words(snake)
    return text[:1].upper() + text[1:]


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _slug(text: str) -> str:
    return "_".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


# -- the hierarchy ---------------------------------------------------------------------------------

# (selection, weight) per integration; weights skew the sizes as in a real organisation.
SCHEMAS = (
    ("analytics", 5), ("finance", 2), ("raw", 2), ("marketing", 2), ("ops", 2), ("product", 1),
    ("support", 1), ("logistics", 2), ("sales", 1), ("people", 1),
)  # fmt: skip
SPACES = (
    ("metrics", 2), ("data-platform", 3), ("finance", 2), ("engineering", 2), ("ops", 2),
    ("marketing", 1), ("sales", 1), ("support", 1), ("product", 1), ("people", 1),
)  # fmt: skip
QUERY_TEAMS = (
    ("finance", 2), ("growth", 2), ("ops", 2), ("data-eng", 1), ("marketing", 1), ("product", 1),
    ("support", 1), ("sales", 1), ("logistics", 1), ("people", 1),
)  # fmt: skip
NOTE_TEAMS = (
    ("data-team", 3), ("finance", 2), ("data-eng", 2), ("growth", 1), ("ops", 1), ("marketing", 1),
    ("product", 1), ("support", 1), ("sales", 1), ("leadership", 1),
)  # fmt: skip
CHANNELS = (
    ("data-help", 3), ("data-eng", 2), ("finance-ops", 1), ("growth", 1), ("ops-alerts", 2),
    ("marketing", 1), ("product", 1), ("support-escalations", 1), ("sales", 1), ("analytics-eng", 1),
)  # fmt: skip
AREAS = (
    ("exec", 1), ("growth", 2), ("ops", 2), ("finance", 1), ("marketing", 1), ("product", 1),
    ("support", 1), ("sales", 1), ("logistics", 1), ("people", 1),
)  # fmt: skip
# The entities each schema models, by plural name.
SCHEMA_ENTITIES = {
    "analytics": ("customers", "orders", "order_items", "refunds", "subscriptions", "sessions", "products",
                  "tickets", "returns", "shipments", "page_views", "promotions"),
    "finance": ("invoices", "ledger_entries", "fx_rates", "budgets", "refunds", "gift_cards", "payments",
                "orders", "subscriptions"),
    "raw": ("payments", "refunds", "orders", "page_views", "tickets", "shipments", "leads", "emails",
            "ad_spend", "reviews"),
    "marketing": ("campaigns", "ad_spend", "emails", "promotions", "customers", "sessions", "experiments"),
    "ops": ("inventory", "shipments", "returns", "deliveries", "purchase_orders", "suppliers", "stores"),
    "product": ("products", "reviews", "experiments", "sessions", "page_views"),
    "support": ("tickets", "surveys", "returns", "deliveries", "customers"),
    "logistics": ("shipments", "deliveries", "inventory", "purchase_orders", "suppliers", "returns"),
    "sales": ("leads", "accounts", "invoices", "orders", "customers"),
    "people": ("employees", "budgets"),
}  # fmt: skip
RAW_SOURCES = ("stripe", "perch", "zendesk", "hubspot", "segment", "netsuite", "shipbob", "braze", "yotpo")
TABLE_PREFIXES = {"analytics": ("dim", "fct"), "finance": ("fct", "dim", "rpt", "gl"), "raw": ()}
OTHER_PREFIXES = ("fct", "dim", "agg", "rpt", "int")
QUALIFIERS = (
    ("", "one row per {s}", ""),
    ("daily", "one row per {s} per day", " (daily snapshot)"),
    ("monthly", "one row per {s} per month", " (monthly)"),
    ("history", "one row per version of a {s}", " (history)"),
    ("by_region", "one row per {s} and region", " by region"),
    ("by_channel", "one row per {s} and channel", " by channel"),
    ("enriched", "one row per {s}", " (enriched)"),
    ("weekly", "one row per {s} per week", " (weekly)"),
    ("current", "one row per {s}, current state only", " (current)"),
    ("v2", "one row per {s}", " (v2)"),
)
SECTIONS = (
    "definition", "calculation", "exclusions", "history", "ownership", "data_sources", "known_issues",
    "faq", "examples", "access", "sla", "glossary", "runbook", "migration",
)  # fmt: skip
PAGE_TOPICS = (
    "data model", "lifecycle", "runbook", "glossary", "reporting guide", "known issues", "access policy",
    "migration notes", "ownership and SLAs", "onboarding guide", "quality checks", "faq",
)  # fmt: skip
QUERY_VERBS = ("daily", "weekly", "monthly", "top", "cohort", "reconcile", "health_check", "trend", "by")


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    entity: Entity
    columns: tuple[Column, ...]

    @property
    def ref(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class Question:
    skill_id: str
    text: str
    principals: tuple[str, ...]


@dataclass(frozen=True)
class SyntheticCatalogue:
    assets: list[Asset]
    skills: dict[str, ComposerSkillSpec]
    questions: list[Question]

    def stats(self) -> dict[str, object]:
        n = len(self.assets) or 1
        return {
            "assets": len(self.assets),
            "by_kind": dict(sorted(Counter(a.kind for a in self.assets).items())),
            "by_integration": dict(sorted(Counter(a.path.split("/")[0] for a in self.assets).items())),
            "selections": len({"/".join(a.path.split("/")[:2]) for a in self.assets}),
            "objects": sum(1 for a in self.assets if a.path.count("/") == 2),
            "deprecated_share": round(sum(a.deprecated for a in self.assets) / n, 4),
            "finance_only_share": round(sum(a.principals == FINANCE_ONLY for a in self.assets) / n, 4),
            "everyone_share": round(sum(a.principals == EVERYONE for a in self.assets) / n, 4),
            "payload_chars_mean": round(sum(len(str(a.payload)) for a in self.assets) / n, 1),
        }


@dataclass
class _Builder:
    rng: random.Random
    reserved: frozenset[str]  # another catalogue's paths: never taken, not even with a suffix
    used: set[str] = field(default_factory=set)
    redraws: int = 0
    assets: list[Asset] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)  # "team/name"
    pages: list[tuple[str, str]] = field(default_factory=list)  # (path, title)
    epoch: datetime = datetime(2024, 1, 1, tzinfo=UTC)

    # -- small draws ---------------------------------------------------------------------------

    def pick(self, weighted: Sequence[tuple[str, int]]) -> str:
        return self.rng.choices([n for n, _ in weighted], weights=[w for _, w in weighted])[0]

    def when(self) -> datetime:
        minutes = self.rng.randrange(0, 1000 * 24 * 60, 10)
        return self.epoch + timedelta(minutes=minutes)

    def date(self) -> str:
        return self.when().strftime("%Y-%m-%d")

    def unique(self, path: str) -> str:
        """`path`, or `path_2`, `path_3`... the first one neither used nor reserved."""
        candidate, n = path, 1
        while candidate in self.used or candidate in self.reserved:
            n += 1
            candidate = f"{path}_{n}"
        self.used.add(candidate)
        return candidate

    def redraw(self, path: str) -> bool:
        """True when an object should be drawn again rather than take `path` with a suffix: an
        object of that name exists already (here or in the reserved catalogue), and a fresh draw
        has not failed too often. `dim_orders_2` beside `dim_orders` would be a near-duplicate."""
        if path not in self.used and path not in self.reserved:
            self.redraws = 0
            return False
        self.redraws += 1
        return self.redraws <= 100

    def principals(self, finance_share: float, everyone_share: float) -> list[str]:
        roll = self.rng.random()
        if roll < finance_share:
            return FINANCE_ONLY
        return EVERYONE if roll < finance_share + everyone_share else ANALYSTS

    def table(self) -> Table:
        return self.rng.choice(self.tables)

    def table_sentence(self, t: Table) -> str:
        col = self.rng.choice(t.columns)
        templates = (
            f"Use `{t.ref}` for {t.entity.plural.replace('_', ' ')}: one row per {t.entity.singular}.",
            f"`{t.ref}.{col.name}` is the column to use: {col.description[:1].lower()}{col.description[1:]}",
            f"Join `{t.ref}` on `{t.columns[0].name}`; it already applies the {self.rng.choice(RULES)}.",
            f"The {_words(t.entity.plural)} figures come from `{t.ref}`, refreshed "
            f"{self.rng.choice(REFRESH)}.",
        )
        return self.rng.choice(templates)

    def sentence(self, metric: tuple[str, str, str] | None = None) -> str:
        slug, name, what = metric or self.rng.choice(METRICS)
        t = self.table()
        options = (
            f"{name} is {what}.",
            self.table_sentence(t),
            f"Since {self.date()}, {self.rng.choice(CHANGES)}.",
            f"On {self.date()} {self.rng.choice(INCIDENTS)[1]}; {name.lower()} for that week is restated.",
            f"Questions about {name.lower()} go to #{self.pick(CHANNELS)}; "
            f"{self.rng.choice(TEAMS)} owns the definition.",
            f"Break {name.lower()} down by {self.rng.choice(DIMENSIONS)} with the saved query "
            f"`queries/{self.rng.choice(self.queries) if self.queries else 'growth/' + slug}`.",
            f"Never read from `raw` for {name.lower()}; `{t.ref}` already applies the "
            f"{self.rng.choice(RULES)}.",
            f"Exclude `is_test` records from {name.lower()}, and compare periods only under one definition.",
        )
        return self.rng.choice(options)

    def paragraph(self, sentences: int, metric: tuple[str, str, str] | None = None) -> str:
        return " ".join(self.sentence(metric) for _ in range(sentences))

    def add(self, **fields: object) -> None:
        self.assets.append(Asset.model_validate({"updated_at": self.when(), "deprecated": False, **fields}))


# -- integrations ----------------------------------------------------------------------------------


def _warehouse(b: _Builder, quota: int) -> None:
    start = len(b.assets)
    while len(b.assets) - start < quota:
        schema = b.pick(SCHEMAS)
        plural = b.rng.choice(SCHEMA_ENTITIES[schema])
        entity = next(e for e in ENTITIES if e.plural == plural)
        qualifier, grain, suffix = b.rng.choice(QUALIFIERS)
        deprecated = b.rng.random() < 0.04
        if schema == "raw":
            base = f"{b.rng.choice(RAW_SOURCES)}_{entity.plural}"
        else:
            prefixes = TABLE_PREFIXES.get(schema, OTHER_PREFIXES)
            base = f"{b.rng.choice(prefixes)}_{entity.plural}"
        base = f"{base}_{qualifier}" if qualifier else base
        if deprecated:
            base += b.rng.choice(("_legacy", "_v1", "_old"))
        if b.redraw(f"warehouse/{schema}/{base}"):
            continue
        name = b.unique(f"warehouse/{schema}/{base}").rsplit("/", 1)[1]
        # Entity columns first (its key), then generic ones, 5-40 in all, no name twice.
        wanted = b.rng.randint(5, 40)
        pool = [c for c in GENERIC_COLUMNS if c.name not in {e.name for e in entity.columns}]
        extra = b.rng.sample(pool, min(len(pool), max(0, wanted - len(entity.columns))))
        columns = [*entity.columns, *extra][:wanted]
        while len(columns) < wanted:  # wider than the vocabulary: numbered measures
            n = len(columns)
            columns.append(
                Column(
                    f"measure_{n:02d}_usd",
                    "numeric(18,2)",
                    f"Pre-aggregated amount {n} in USD for {_words(entity.plural)} (see the wiki page).",
                    round(b.rng.uniform(0, 5000), 2),
                )
            )
        room = quota - (len(b.assets) - start) - 1
        documented = columns[: max(0, room)]
        finance = schema in ("finance", "people")
        principals = b.principals(0.6 if finance else 0.01, 0.0 if finance else 0.03)
        table = Table(schema, name, entity, tuple(columns))
        title = f"{_title(entity.plural)}{suffix}" + (" (deprecated)" if deprecated else "")
        purpose = (
            f"Superseded: use `{schema}.{base.rsplit('_', 1)[0]}` instead. "
            if deprecated
            else f"Built from {b.rng.choice(RAW_SOURCES)} data with the {b.rng.choice(RULES)}. "
        )
        b.add(
            asset_id=f"table:{schema}.{name}",
            path=f"warehouse/{schema}/{name}",
            kind="table",
            title=title,
            body=f"{grain.format(s=entity.singular).capitalize()}: {entity.phrase}. {purpose}"
            f"Owned by {b.rng.choice(TEAMS)}.",
            payload={
                "schema": schema,
                "grain": grain.format(s=entity.singular),
                "owner": b.rng.choice(TEAMS),
                "row_count": b.rng.randint(1_000, 90_000_000),
                "columns": [c.name for c in columns],
                "refreshed": b.rng.choice(REFRESH),
            },
            principals=principals,
            deprecated=deprecated,
        )
        for c in documented:
            b.add(
                asset_id=f"col:{schema}.{name}.{c.name}",
                path=f"warehouse/{schema}/{name}/columns/{c.name}",
                kind="column",
                title=f"{name}.{c.name}",
                body=c.description,
                payload={
                    "type": c.type,
                    "nullable": c.name not in (columns[0].name, "is_test"),
                    "description": f"{c.description} In `{schema}.{name}`, {table.entity.phrase}.",
                    "example": c.example,
                },
                principals=principals,
                deprecated=deprecated,
            )
        if not deprecated:
            b.tables.append(table)


def _wiki(b: _Builder, quota: int) -> None:
    start = len(b.assets)
    while len(b.assets) - start < quota:
        space = b.pick(SPACES)
        metric: tuple[str, str, str] | None = None
        entity = b.rng.choice(ENTITIES)
        if space == "metrics":
            metric = b.rng.choice(METRICS)
            slug, title = metric[0], metric[1]
            if f"wiki/metrics/{slug}" in b.used or f"wiki/metrics/{slug}" in b.reserved:
                dim = b.rng.choice(DIMENSIONS)
                slug, title = f"{slug}_by_{_slug(dim)}", f"{metric[1]} by {dim}"
        else:
            topic = b.rng.choice(PAGE_TOPICS)
            slug, title = _slug(f"{entity.plural} {topic}"), f"{_title(entity.plural)} {topic}"
        if b.redraw(f"wiki/{space}/{slug}"):
            continue
        archived = b.rng.random() < 0.02
        slug = b.unique(f"wiki/{space}/{slug}").rsplit("/", 1)[1]
        handbook = b.rng.random() < 0.02  # a few long pages, as real wikis have
        paragraphs = [b.paragraph(b.rng.randint(3, 6), metric) for _ in range(b.rng.randint(3, 7))]
        if handbook:
            paragraphs += [b.paragraph(6, metric) for _ in range(b.rng.randint(20, 40))]
        finance = space in ("finance", "people")
        principals = b.principals(0.45 if finance else 0.01, 0.2 if finance else 0.75)
        lead = metric[2] if metric else f"{entity.phrase}, and how the data describes it"
        b.add(
            asset_id=f"wiki:{space}.{slug}",
            path=f"wiki/{space}/{slug}",
            kind="wiki_page",
            title=title + (" (archived)" if archived else ""),
            body=f"{title}: {lead}." + (" Archived; kept for history." if archived else ""),
            payload={"markdown": f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"},
            principals=principals,
            deprecated=archived,
        )
        b.pages.append((f"wiki/{space}/{slug}", title))
        room = quota - (len(b.assets) - start)
        for section in b.rng.sample(SECTIONS, b.rng.randint(2, 8))[: max(0, room)]:
            text = "\n\n".join(b.paragraph(b.rng.randint(2, 4), metric) for _ in range(b.rng.randint(1, 3)))
            b.add(
                asset_id=f"wikisec:{space}.{slug}.{section}",
                path=f"wiki/{space}/{slug}/sections/{section}",
                kind="wiki_section",
                title=f"{title} \u2014 {_words(section)}",
                body=f"The {_words(section)} of {title.lower()}: {b.sentence(metric)}",
                payload={"markdown": f"## {_title(section)}\n\n{text}"},
                principals=principals,
                deprecated=archived,
            )


def _sql(b: _Builder, tables: Sequence[Table]) -> str:
    first = tables[0]
    date_col = next((c.name for c in first.columns if c.type in ("date", "timestamp")), "created_at")
    measure = next((c.name for c in first.columns if c.name.endswith("_usd")), None)
    select = [f"date_trunc('month', t0.{date_col}) as month"]
    select.append(f"sum(t0.{measure}) as {measure}" if measure else "count(*) as records")
    joins = []
    for n, t in enumerate(tables[1:], start=1):
        key = first.columns[0].name
        joins.append(f"left join {t.ref} t{n} on t{n}.{key} = t0.{key}")
    filters = ["t0.is_test = false"] if any(c.name == "is_test" for c in first.columns) else ["1 = 1"]
    return (
        "select " + ",\n       ".join(select) + f"\nfrom {first.ref} t0\n" + "".join(j + "\n" for j in joins)
        + "where " + "\n  and ".join(filters) + "\ngroup by 1\norder by 1\n"
    )  # fmt: skip


def _queries(b: _Builder, quota: int) -> None:
    start = len(b.assets)
    while len(b.assets) - start < quota:
        team = b.pick(QUERY_TEAMS)
        slug, metric_name, _what = b.rng.choice(METRICS)
        verb, dim = b.rng.choice(QUERY_VERBS), _slug(b.rng.choice(DIMENSIONS))
        if b.redraw(f"queries/{team}/{verb}_{slug}_by_{dim}"):
            continue
        name = b.unique(f"queries/{team}/{verb}_{slug}_by_{dim}").rsplit("/", 1)[1]
        tables = b.rng.sample(b.tables, b.rng.randint(1, 3))
        finance = team in ("finance", "people")
        b.add(
            asset_id=f"query:{team}.{name}",
            path=f"queries/{team}/{name}",
            kind="saved_query",
            title=f"{_title(verb)} {metric_name.lower()} by {_words(dim)}",
            body=f"{metric_name} by {_words(dim)}, {verb.replace('_', ' ')}, from {tables[0].ref}.",
            payload={
                "sql": _sql(b, tables),
                "description": f"Implements the {metric_name.lower()} definition: {b.sentence()}",
                "tables": [t.ref for t in tables],
            },
            principals=b.principals(0.5 if finance else 0.02, 0.0),
        )
        b.queries.append(f"{team}/{name}")


def _notes(b: _Builder, quota: int) -> None:
    for _ in range(quota):
        team = b.pick(NOTE_TEAMS)
        t = b.table()
        metric = b.rng.choice(METRICS)
        day = b.when()
        slug = b.unique(f"notes/{team}/{_slug(metric[0])}-{t.entity.plural}-{day:%Y-%m-%d}").rsplit("/", 1)[1]
        headline, incident = b.rng.choice(INCIDENTS)
        b.add(
            asset_id=f"note:{team}.{slug}",
            path=f"notes/{team}/{slug}",
            kind="note",
            title=f"{metric[1]}: {headline} ({day:%b %Y})",
            body=f"On {day:%Y-%m-%d} {incident}; {metric[1].lower()} read from `{t.ref}` is affected.",
            payload={
                "text": f"Heads-up: on {day:%Y-%m-%d} {incident}. {b.table_sentence(t)} "
                + b.paragraph(b.rng.randint(2, 5), metric),
                "author": f"{b.rng.choice(PEOPLE).replace('.', ' ').title()} ({team})",
            },
            principals=b.principals(0.6 if team == "finance" else 0.01, 0.0),
            updated_at=day,
        )


def _slack(b: _Builder, quota: int) -> None:
    for _ in range(quota):
        channel = b.pick(CHANNELS)
        t = b.table()
        metric = b.rng.choice(METRICS)
        number = b.rng.randint(100, 99_999)
        while f"slack/{channel}/thread-{number}" in b.used:
            number = b.rng.randint(100, 99_999)
        path = b.unique(f"slack/{channel}/thread-{number}")
        asker, answerer = b.rng.sample(PEOPLE, 2)
        question = (
            f"Why does {metric[1].lower()} by {b.rng.choice(DIMENSIONS)} not match between the dashboard "
            f"and `{t.ref}`?"
        )
        messages = [{"author": asker, "text": question}]
        for _ in range(b.rng.randint(1, 5)):
            messages.append({"author": b.rng.choice((answerer, asker)), "text": b.sentence(metric)})
        b.add(
            asset_id=f"thread:{channel}.{number}",
            path=path,
            kind="thread",
            title=question[:120],
            body=f"{messages[1]['text']}",
            payload={"messages": messages},
            principals=b.principals(0.9 if channel == "finance-ops" else 0.01, 0.9),
        )


def _dashboards(b: _Builder, quota: int) -> None:
    start = len(b.assets)
    while len(b.assets) - start < quota:
        area = b.pick(AREAS)
        metrics = b.rng.sample(METRICS, b.rng.randint(3, 8))
        first, second = (m[0].replace("_", "-") for m in metrics[:2])
        if b.redraw(f"dashboards/{area}/{first}-and-{second}"):
            continue
        name = b.unique(f"dashboards/{area}/{first}-and-{second}").rsplit("/", 1)[1]
        b.add(
            asset_id=f"dash:{area}.{name}",
            path=f"dashboards/{area}/{name}",
            kind="dashboard",
            title=f"{_title(area)}: {metrics[0][1].lower()} and {metrics[1][1].lower()}",
            body=f"The {area} dashboard: " + ", ".join(m[1].lower() for m in metrics) + ".",
            payload={
                "url": f"https://bi.kestrelprovisions.internal/d/{area}-{name}",
                "tiles": [f"{m[1]} ({b.rng.choice(DIMENSIONS)})" for m in metrics],
            },
            principals=b.principals(0.7 if area in ("finance", "people") else 0.0, 0.8),
        )


# -- skills and questions --------------------------------------------------------------------------


def _skill(intent: str, include: list[str], exclude: list[str], budget: int) -> ComposerSkillSpec:
    return ComposerSkillSpec(
        intent=intent,
        procedure="1. Find the definition.\n2. Find the table and the saved query.\n3. State any caveat.",
        output_contract="Markdown: **Answer**, **Sources** (asset ids in backticks), **Caveats**.",
        guardrails="Never use deprecated tables. Never read from raw for reporting. Exclude test records.",
        scope=Scope(include=include, exclude=exclude),
        budget_tokens=budget,
    )


SKILLS: dict[str, ComposerSkillSpec] = {
    # broad: thousands of assets
    "warehouse-discovery": _skill(
        "Help someone find the right warehouse table and columns: grain, current version, join keys.",
        ["warehouse/**"],
        ["warehouse/people/**"],
        15_000,
    ),
    "metric-lookup": _skill(
        "Answer questions about business metrics with the definition, the saved query and caveats.",
        [
            "warehouse/analytics/**",
            "wiki/metrics/**",
            "queries/**",
            "notes/data-team/*",
            "slack/data-help/*",
            "dashboards/*/*",
        ],
        ["queries/data-eng/*"],
        15_000,
    ),
    "incident-triage": _skill(
        "Diagnose suspicious numbers: pipeline incidents, resyncs, stale tables and their fixes.",
        ["slack/**", "notes/**", "wiki/data-platform/**", "wiki/engineering/**", "queries/data-eng/*"],
        [],
        10_000,
    ),
    # narrow: a few hundred assets
    "finance-close": _skill(
        "Support the month-end close: reconciliations, locked periods and finance-owned queries.",
        ["queries/finance/*", "notes/finance/*", "wiki/finance/**", "dashboards/finance/*"],
        [],
        8_000,
    ),
    # everything
    "org-wide": _skill("Answer any question about the organisation's data.", ["**"], [], 15_000),
}


def _questions(b: _Builder, count: int) -> list[Question]:
    def table() -> Table:
        return b.table()

    def col(t: Table) -> str:
        return _words(b.rng.choice(t.columns[1:] or t.columns).name.strip("_"))

    def metric() -> tuple[str, str, str]:
        return b.rng.choice(METRICS)

    def dim() -> str:
        return b.rng.choice(DIMENSIONS)

    def month() -> str:
        return b.when().strftime("%B %Y")

    def things(t: Table) -> str:
        return _words(t.entity.plural)

    makers: dict[str, tuple[Callable[[Table], str], ...]] = {
        "warehouse-discovery": (
            lambda t: f"Which table has {t.entity.phrase} per row, and which column holds the {col(t)}?",
            lambda t: f"Is `{t.ref}` still the right table for {things(t)}, or is there a newer one?",
            lambda t: f"How do I join {things(t)} to {things(table())}, which key?",
            lambda t: (
                f"Where is the {col(t)} of {_a(t.entity.singular)} stored, and is it UTC or local time?"
            ),
        ),
        "metric-lookup": (
            lambda t: f"How is {metric()[1].lower()} calculated, and which saved query splits it by {dim()}?",
            lambda t: f"Why does {metric()[1].lower()} on the dashboard differ from `{t.ref}`?",
            lambda t: f"What counts toward {metric()[1].lower()}; are test records in `{t.ref}` excluded?",
        ),
        "incident-triage": (
            lambda t: f"Did the {things(t)} pipeline break around {month()}? {metric()[1]} looks off.",
            lambda t: f"Someone mentioned duplicate {things(t)} after a resync; which note explains it?",
            lambda t: f"`{t.ref}` looks stale since {month()}; was there an incident and is it fixed?",
        ),
        "finance-close": (
            lambda t: f"Which finance queries do I run to reconcile {things(t)} at month end?",
            lambda t: f"Is {month()} locked for {metric()[1].lower()}, and were there close adjustments?",
        ),
        "org-wide": (
            lambda t: f"Everything we know about {things(t)}: tables, definitions and caveats.",
            lambda t: f"Who owns {metric()[1].lower()} and where is it documented?",
        ),
    }
    order = list(makers)
    out: list[Question] = []
    seen: set[str] = set()
    while len(out) < count:
        skill_id = order[len(out) % len(order)]
        text = b.rng.choice(makers[skill_id])(table())
        if text in seen:
            continue
        seen.add(text)
        principals: tuple[str, ...] = ("finance",) if skill_id == "finance-close" else ("analyst",)
        if skill_id == "org-wide" and len(out) % 3 == 0:
            principals = ()  # an `everyone`-only caller
        out.append(Question(skill_id, text, principals))
    return out


def generate(
    assets: int = DEFAULT_ASSETS,
    questions: int = DEFAULT_QUESTIONS,
    seed: int = SEED,
    *,
    reserved_paths: Collection[str] = (),
) -> SyntheticCatalogue:
    """`assets` assets exactly, the skills above and `questions` questions. No generated object
    takes a path in `reserved_paths` (another catalogue's objects, to share a deployment)."""
    if assets < 200:
        raise ValueError("at least 200 assets: every integration needs a few objects")
    b = _Builder(random.Random(seed), frozenset(reserved_paths))
    quotas = {name: round(share * assets) for name, share in SHARES.items()}
    _warehouse(b, assets - sum(quotas.values()))
    _queries(b, quotas["queries"])
    _wiki(b, quotas["wiki"])
    _notes(b, quotas["notes"])
    _slack(b, quotas["slack"])
    _dashboards(b, quotas["dashboards"])
    if len(b.assets) != assets or len({a.asset_id for a in b.assets}) != assets:
        raise AssertionError(f"generated {len(b.assets)} assets, wanted {assets} distinct ids")
    return SyntheticCatalogue(b.assets, dict(SKILLS), _questions(b, questions))


if __name__ == "__main__":
    import json
    import sys

    size = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ASSETS
    catalogue = generate(size)
    print(json.dumps(catalogue.stats(), indent=2))
    for q in catalogue.questions[:10]:
        print(f"{q.skill_id:<20} {q.principals!s:<14} {q.text}")
