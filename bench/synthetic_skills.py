"""A synthetic, organisation-specific skill library for bench/skills.py, and task queries written
away from its docstrings.

Every function is one procedure of one business domain: a verb applied to a domain object, often
under a qualifier ("reconcile ledger entries for a fiscal close", "rotate vendor API credentials
when offboarding a supplier"). Each concept has one canonical wording, used in names, docstrings,
guidance titles and guidance content, and two or three paraphrases that never appear in the
library and are the only wordings the task queries use. So a query says "match up journal lines
when we shut the books" for "Reconcile ledger entries for a fiscal close."

Relevance is decided by construction, never by looking at search results:
- a query written for a function has as relevant items that function and every guidance that
  links it;
- a query written for a guidance has that guidance and every function it links.

Everything is drawn from one seeded `random.Random`: the same sizes and seed give the same library
and queries, byte for byte."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentmem.adapters.local.fts import STOP_WORDS
from agentmem.procedural.model import FunctionSpec, GuidanceSpec, SkillStatus


@dataclass(frozen=True)
class Concept:
    code: str
    canonical: str
    paraphrases: tuple[str, ...]


@dataclass(frozen=True)
class DomainObject:
    concept: Concept
    type_name: str
    categories: str  # letters of the verb categories that apply: R, A, W, O, P


@dataclass(frozen=True)
class Domain:
    tag: str
    system: str
    paraphrases: tuple[str, ...]  # how a person names the domain: "the books", "accounting"
    objects: tuple[DomainObject, ...]
    qualifiers: tuple[Concept, ...]


# One record a line, fields split by " | "; a line starting with "    |" continues the record above.
# verb CATEGORY | code | canonical | paraphrases...      ({o} is where the object goes)
# generic CODE | canonical | paraphrases...             (a qualifier any domain may draw)
# domain TAG | System | how people name the domain...
# object TypeName | verb categories | canonical | paraphrases...
# qualifier CODE | canonical | paraphrases...           (of the domain above)
# Verb categories: R records, A access and secrets, W workflow items, O running things, P reports.
# Within a category, verbs are in the order a runbook would call them.
# The vocabulary is data, kept beside the code: bench/data/skill_vocabulary.txt.
VOCABULARY = (Path(__file__).parent / "data" / "skill_vocabulary.txt").read_text(encoding="utf-8")


def _records(text: str) -> list[list[str]]:
    records: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" | ")]
        if line.startswith("    |"):  # "    | a | b" splits as ["", "a", "b"]
            records[-1] += fields[1:]
        else:
            records.append(fields)
    return records


def _parse(text: str) -> tuple[dict[str, tuple[Concept, ...]], tuple[Concept, ...], tuple[Domain, ...]]:
    verbs: dict[str, list[Concept]] = defaultdict(list)
    generic: list[Concept] = []
    domains: list[Domain] = []
    objects: list[DomainObject] = []
    qualifiers: list[Concept] = []

    def close_domain() -> None:
        if domains:
            last = domains[-1]
            domains[-1] = Domain(last.tag, last.system, last.paraphrases, tuple(objects), tuple(qualifiers))
            objects.clear()
            qualifiers.clear()

    for head, *rest in _records(text):
        kind, _, key = head.partition(" ")
        if kind == "verb":
            verbs[key].append(Concept(rest[0], rest[1], tuple(rest[2:])))
        elif kind == "generic":
            generic.append(Concept(key, rest[0], tuple(rest[1:])))
        elif kind == "domain":
            close_domain()
            domains.append(Domain(key, rest[0], tuple(rest[1:]), (), ()))
        elif kind == "object":
            code = re.sub(r"[^a-z0-9]+", "_", rest[1].lower()).strip("_")
            objects.append(DomainObject(Concept(code, rest[1], tuple(rest[2:])), key, rest[0]))
        elif kind == "qualifier":
            qualifiers.append(Concept(key, rest[0], tuple(rest[1:])))
        else:
            raise ValueError(f"unknown vocabulary record {head!r}")
    close_domain()
    return {k: tuple(v) for k, v in verbs.items()}, tuple(generic), tuple(domains)


VERBS, GENERIC_QUALIFIERS, DOMAINS = _parse(VOCABULARY)
VERB_ORDER = {v.code: i for i, v in enumerate(v for verbs in VERBS.values() for v in verbs)}


# -- docstrings, signatures, implementations ------------------------------------------------------

SINKS = ("the data lake", "the shared drive", "the reporting database", "S3", "the audit bucket")
DETAILS = (
    "Reads them from {system} and writes a summary to {sink}.",
    "Safe to rerun: items already handled are skipped.",
    "Returns a {ret} describing every change made.",
    "Requires the `{tag}-ops` role in {system}.",
    "Every change is recorded in the audit trail.",
    "Pass `dry_run=True` to see what would happen without writing anything.",
    "Calls the {system} API in pages of 100 items.",
    "Raises {type}Error when {system} rejects the request.",
    "Posts a message to #{tag}-ops when it finishes.",
    "Owned by the {tag} platform team; see the runbook before changing it.",
    "Runs under the {system} service account, never a personal one.",
    "Times out after ten minutes and leaves partial work in place for the next run.",
)
KEYWORD_ARGS = {
    "R": "since: date | None = None, dry_run: bool = False",
    "A": "owner: str, ttl_days: int = 90",
    "W": "actor: str, reason: str = ''",
    "O": "region: str, timeout_s: int = 600",
    "P": "period: str, fmt: str = 'pdf'",
}
GUIDANCE_NOTES = (
    "Get sign-off from the {tag} lead before running anything against production data.",
    "Post a short summary in #{tag}-ops when you are done.",
    "If a step fails, stop there and page the {tag} on-call; do not skip ahead.",
    "Keep the run log: auditors ask for it for seven years.",
    "Never run two of these steps at once on the same data.",
    "Check the {system} status page first; a degraded API makes half of these steps time out.",
    "Steps are idempotent, so a rerun after a failure is safe.",
    "Write down anything unusual in the {system} change log.",
)

# -- queries ---------------------------------------------------------------------------------------

FUNCTION_QUERY_TEMPLATES = (
    "{act} {qual}",
    "I need to {act} {qual}",
    "how do I {act} {qual}?",
    "can you {act} {qual}",
    "{Qual}, {act}",
    "help me {act} {qual}",
    "task: {act} {qual}",
    "we have to {act} {qual} - what should I use?",
    "looking for a way to {act} {qual}",
    "{Qual} I want to {act}",
)
GUIDANCE_QUERY_TEMPLATES = {
    "object_qualifier": (
        "what's the process for {obj} {qual}?",
        "walk me through handling {obj} {qual}",
        "how do we usually deal with {obj} {qual}",
        "{Qual}, what are the steps for {obj}?",
    ),
    "object": (
        "everything I should know about {obj}",
        "tips for dealing with {obj} in {domain}",
        "how does {domain} handle {obj}?",
        "what's the usual way to work with {obj}",
    ),
    "qualifier": (
        "what does {domain} need to do {qual}?",
        "{Qual}, what must {domain} take care of?",
        "the things {domain} has to get done {qual}",
        "what's on the list for {domain} {qual}",
    ),
}
SYSTEM_MENTION = ("in {system}", "(we use {system})", "on {system}")
SYSTEM_MENTION_RATE = 0.3


@dataclass(frozen=True)
class GeneratedFunction:
    spec: FunctionSpec
    domain: Domain
    obj: DomainObject
    verb: Concept
    qualifier: Concept | None


@dataclass(frozen=True)
class GeneratedGuidance:
    spec: GuidanceSpec
    domain: Domain
    theme: str  # object_qualifier, object or qualifier
    obj: DomainObject | None
    qualifier: Concept | None


@dataclass(frozen=True)
class Query:
    text: str
    target: tuple[str, str]  # (kind, id) the query was written for
    relevant: frozenset[tuple[str, str]]
    target_text: str  # the target's indexed text: what word overlap is measured against
    target_docstring: str  # docstring (function) or content (guidance)
    # The same query with the object (a guidance without one: the domain) named in the library's
    # own words, verb and qualifier still paraphrased: information only, never used for a bar.
    text_named: str


@dataclass
class Library:
    functions: list[GeneratedFunction] = field(default_factory=list)
    guidance: list[GeneratedGuidance] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)


def _snake(type_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type_name).lower()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _verb_phrase(verb: str, obj: str) -> str:
    return verb.replace("{o}", obj)


def _function_spec(
    domain: Domain,
    obj: DomainObject,
    category: str,
    verb: Concept,
    qualifier: Concept | None,
    deps: Sequence[GeneratedFunction],
    rng: random.Random,
) -> FunctionSpec:
    name = "_".join(p for p in (verb.code, obj.concept.code, qualifier.code if qualifier else "") if p)
    ret = "".join(part.capitalize() for part in verb.code.split("_")) + "Result"
    param = _snake(obj.type_name) + "s"
    signature = f"({param}: list[{obj.type_name}], *, {KEYWORD_ARGS[category]}) -> {ret}"
    what = _verb_phrase(verb.canonical, obj.concept.canonical)
    if qualifier is not None:
        what += " " + qualifier.canonical
    values = {
        "system": domain.system,
        "sink": rng.choice(SINKS),
        "ret": ret,
        "tag": domain.tag,
        "type": obj.type_name,
    }
    details = [d.format(**values) for d in rng.sample(DETAILS, rng.choice((1, 2, 2, 3)))]
    docstring = " ".join([_cap(what) + ".", *details])
    calls = "".join(f"    {d.spec.name}(client, {param})\n" for d in deps)
    implementation = (
        f"def {name}{signature}:\n"
        f'    """{docstring}"""\n'
        f"    client = {domain.system.lower()}.client(timeout=600)\n"
        f"{calls}"
        f"    response = client.call({verb.code!r}, {param})\n"
        f"    return {ret}.from_response(response)\n"
    )
    tags = [domain.tag, domain.system.lower(), {"R": "records", "A": "access", "W": "workflow",
            "O": "operations", "P": "reporting"}[category]]  # fmt: skip
    return FunctionSpec(
        function_id=f"{domain.tag}.{name}",
        name=name,
        signature=signature,
        docstring=docstring,
        implementation=implementation,
        depends_on=[d.spec.function_id for d in deps],
        tags=tags,
        status=SkillStatus.APPROVED,
        author=f"{domain.tag}-platform@example.com",
    )


Combination = tuple[Domain, DomainObject, str, Concept, Concept | None]


def _combinations(rng: random.Random) -> list[Combination]:
    """Every (domain, object, verb category, verb, qualifier) the vocabulary allows, shuffled. A
    domain's qualifiers are its four own and two of the generic ones, drawn per domain."""
    out: list[Combination] = []
    for domain in DOMAINS:
        qualifiers = [None, *domain.qualifiers, *rng.sample(GENERIC_QUALIFIERS, 2)]
        for obj in domain.objects:
            for category in obj.categories:
                for verb in VERBS[category]:
                    for qualifier in qualifiers:
                        out.append((domain, obj, category, verb, qualifier))
    rng.shuffle(out)
    return out


def generate(functions: int, guidance: int, queries: int, seed: int) -> Library:
    """`functions` functions, `guidance` guidance and `queries` task queries (about four in five
    written for a function, the rest for a guidance), all approved."""
    rng = random.Random(seed)
    library = Library()
    # Draw combinations so a third come without a qualifier: not every procedure has a context.
    pool = _combinations(rng)
    bare = [c for c in pool if c[4] is None]
    qualified = [c for c in pool if c[4] is not None]
    n_bare = min(len(bare), functions // 3)
    chosen = bare[:n_bare] + qualified[: functions - n_bare]
    if len(chosen) < functions:
        raise ValueError(f"the vocabulary allows only {len(pool)} functions")
    rng.shuffle(chosen)

    by_domain: dict[str, list[GeneratedFunction]] = defaultdict(list)
    by_object: dict[tuple[str, str], list[GeneratedFunction]] = defaultdict(list)
    for domain, obj, category, verb, qualifier in chosen:
        # Dependencies only on functions written earlier: acyclic by construction. Mostly the same
        # object (a reconcile calls the import and the validate of the same records), else the domain.
        deps: list[GeneratedFunction] = []
        wanted = rng.choices((0, 1, 2, 3), weights=(40, 35, 20, 5))[0]
        same_object = by_object[(domain.tag, obj.concept.code)]
        same_domain = by_domain[domain.tag]
        for _ in range(wanted):
            source = same_object if same_object and rng.random() < 0.7 else same_domain
            if source:
                dep = rng.choice(source)
                if dep not in deps:
                    deps.append(dep)
        spec = _function_spec(domain, obj, category, verb, qualifier, deps, rng)
        generated = GeneratedFunction(spec, domain, obj, verb, qualifier)
        library.functions.append(generated)
        by_domain[domain.tag].append(generated)
        same_object.append(generated)

    library.guidance = _guidance(library.functions, guidance, rng)
    library.queries = _queries(library, queries, rng)
    return library


def _guidance(functions: list[GeneratedFunction], count: int, rng: random.Random) -> list[GeneratedGuidance]:
    by_oq: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    by_o: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    by_q: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    for f in functions:
        by_o[(f.domain.tag, f.obj.concept.code)].append(f)
        if f.qualifier is not None:
            by_oq[(f.domain.tag, f.obj.concept.code, f.qualifier.code)].append(f)
            by_q[(f.domain.tag, f.qualifier.code)].append(f)
    themes: list[tuple[str, tuple[str, ...]]] = []
    oq = [("object_qualifier", k) for k in sorted(by_oq)]
    o = [("object", k) for k in sorted(by_o) if len(by_o[k]) >= 2]
    q = [("qualifier", k) for k in sorted(by_q) if len(by_q[k]) >= 2]
    for pool in (oq, o, q):
        rng.shuffle(pool)
    # 70% runbooks for one object in one context, 20% guides to one object, 10% checklists for a context.
    wanted = {"qualifier": count // 10, "object": count // 5}
    wanted["object_qualifier"] = count - wanted["qualifier"] - wanted["object"]
    for name, pool in (("qualifier", q), ("object", o), ("object_qualifier", oq)):
        themes += pool[: wanted[name]]
    leftovers = [t for t in oq + o + q if t not in set(themes)]
    themes += leftovers[: count - len(themes)]
    if len(themes) < count:
        raise ValueError(f"only {len(themes)} guidance themes for {count} guidance")
    rng.shuffle(themes)

    domains = {d.tag: d for d in DOMAINS}
    out: list[GeneratedGuidance] = []
    for n, (theme, key) in enumerate(themes):
        domain = domains[key[0]]
        obj = next((ob for ob in domain.objects if theme != "qualifier" and ob.concept.code == key[1]), None)
        qual_code = key[-1] if theme != "object" else None
        qualifier = next((c for c in (*domain.qualifiers, *GENERIC_QUALIFIERS) if c.code == qual_code), None)
        size = rng.randint(1, 5) if theme == "object_qualifier" else rng.randint(2, 5)
        if theme == "object_qualifier":
            core = by_oq[key]
            rest = [f for f in by_o[key[:2]] if f not in core]
            linked = rng.sample(core, min(size, len(core)))
            linked += rng.sample(rest, min(size - len(linked), len(rest)))
        else:
            members = by_o[key] if theme == "object" else by_q[key]
            linked = rng.sample(members, min(size, len(members)))
        linked.sort(key=lambda f: (VERB_ORDER[f.verb.code], f.spec.function_id))
        out.append(_guidance_item(n, theme, domain, obj, qualifier, linked, rng))
    return out


def _guidance_item(
    n: int,
    theme: str,
    domain: Domain,
    obj: DomainObject | None,
    qualifier: Concept | None,
    linked: list[GeneratedFunction],
    rng: random.Random,
) -> GeneratedGuidance:
    values = {"system": domain.system, "tag": domain.tag}
    if theme == "object_qualifier":
        assert obj is not None and qualifier is not None
        subject = f"{obj.concept.canonical} {qualifier.canonical}"
        title = rng.choice(
            (
                f"Runbook: {subject}",
                f"How we handle {subject}",
                f"Playbook for {subject}",
                f"Standard procedure: {subject}",
            )
        )
        kind = "runbook"
        when = f"Use this runbook when you work on {subject} in {domain.system}."
    elif theme == "object":
        assert obj is not None
        subject = obj.concept.canonical
        title = rng.choice(
            (f"Working with {subject}", f"{_cap(subject)} handbook", f"Guide to {subject} in {domain.system}")
        )
        kind = "guide"
        when = f"Everything the {domain.tag} team does with {subject} in {domain.system}, in order."
    else:
        assert qualifier is not None
        subject = f"{domain.tag} {qualifier.canonical}"
        title = rng.choice((f"{_cap(domain.tag)} checklist {qualifier.canonical}", f"Checklist: {subject}"))
        kind = "checklist"
        when = f"What the {domain.tag} team must do {qualifier.canonical}."
    steps = []
    for i, f in enumerate(linked, start=1):
        first = f.spec.docstring.split(". ")[0].rstrip(".")
        steps.append(f"{i}. `{f.spec.name}`: {first[:1].lower() + first[1:]}.")
    notes = [f"- {note.format(**values)}" for note in rng.sample(GUIDANCE_NOTES, 2)]
    content = "\n".join([when, "", "## Steps", "", *steps, "", "## Notes", "", *notes])
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:90]
    spec = GuidanceSpec(
        guidance_id=f"{domain.tag}.{slug}.{n:04d}",
        title=title,
        content=content,
        function_ids=[f.spec.function_id for f in linked],
        tags=[domain.tag, kind],
        status=SkillStatus.APPROVED,
        author=f"{domain.tag}-leads@example.com",
    )
    return GeneratedGuidance(spec, domain, theme, obj, qualifier)


def function_text(spec: FunctionSpec) -> str:
    """What the index embeds and matches for a function (as `procedural.search.index_text`)."""
    return "\n".join(p for p in [spec.name, spec.signature, spec.docstring, " ".join(spec.tags)] if p)


def guidance_text(spec: GuidanceSpec) -> str:
    return "\n".join(p for p in [spec.title, spec.content, " ".join(spec.tags)] if p)


def _system_mention(domain: Domain, rng: random.Random) -> str:
    if rng.random() >= SYSTEM_MENTION_RATE:
        return ""
    return " " + rng.choice(SYSTEM_MENTION).format(system=domain.system)


def _queries(library: Library, count: int, rng: random.Random) -> list[Query]:
    linked_by: dict[str, list[str]] = defaultdict(list)
    for g in library.guidance:
        for fid in g.spec.function_ids:
            linked_by[fid].append(g.spec.guidance_id)
    n_guidance = min(len(library.guidance), count // 5)
    n_function = count - n_guidance
    out: list[Query] = []
    for f in rng.sample(library.functions, n_function):
        verb = rng.choice(f.verb.paraphrases)
        act = _verb_phrase(verb, rng.choice(f.obj.concept.paraphrases))
        qual = rng.choice(f.qualifier.paraphrases) if f.qualifier else ""
        templates = [t for t in FUNCTION_QUERY_TEMPLATES if qual or "{Qual}" not in t]
        template = rng.choice(templates)
        system = _system_mention(f.domain, rng)

        def render(act: str, template: str = template, qual: str = qual, system: str = system) -> str:
            text = template.format(act=act, qual=qual, Qual=_cap(qual))
            return " ".join(text.split()).replace(" ?", "?") + system

        relevant = {("function", f.spec.function_id)} | {
            ("guidance", g) for g in linked_by[f.spec.function_id]
        }
        out.append(
            Query(
                render(act),
                ("function", f.spec.function_id),
                frozenset(relevant),
                function_text(f.spec),
                f.spec.docstring,
                render(_verb_phrase(verb, f.obj.concept.canonical)),
            )
        )
    for g in rng.sample(library.guidance, n_guidance):
        template = rng.choice(GUIDANCE_QUERY_TEMPLATES[g.theme])
        values = {
            "obj": rng.choice(g.obj.concept.paraphrases) if g.obj else "",
            "qual": rng.choice(g.qualifier.paraphrases) if g.qualifier else "",
            "domain": rng.choice(g.domain.paraphrases),
        }
        system = _system_mention(g.domain, rng)
        named = {**values, "obj": g.obj.concept.canonical if g.obj else "", "domain": g.domain.tag}
        relevant = {("guidance", g.spec.guidance_id)} | {("function", fid) for fid in g.spec.function_ids}
        out.append(
            Query(
                " ".join((template.format(**values, Qual=_cap(values["qual"])) + system).split()),
                ("guidance", g.spec.guidance_id),
                frozenset(relevant),
                guidance_text(g.spec),
                g.spec.content,
                " ".join((template.format(**named, Qual=_cap(values["qual"])) + system).split()),
            )
        )
    rng.shuffle(out)
    return out


# -- word overlap ----------------------------------------------------------------------------------

# The keyword search's stop words, and the filler words of the query templates.
OVERLAP_STOP_WORDS = STOP_WORDS | {
    "can",
    "help",
    "task",
    "looking",
    "need",
    "want",
    "use",
    "should",
    "usual",
    "way",
}


def _stem(word: str) -> str:
    """A crude suffix strip, close to what FTS5's porter tokenizer would conflate."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


def content_words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in words if w not in OVERLAP_STOP_WORDS and len(w) > 1}


def word_overlap(query: str, target: str) -> float:
    """Share of the query's content words (stop words out, crudely stemmed) found in `target`."""
    q = content_words(query)
    return len(q & content_words(target)) / len(q) if q else 0.0
