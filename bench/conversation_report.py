"""The conversation bench's tables, printed from its results document."""

from __future__ import annotations

from typing import Any

from report import print_table

LABELS = {
    "agentmem": "agentmem (episodic+semantic)",
    "agentmem+history": "agentmem + history",
    "naive": "naive BM25+MiniLM, raw events",
}


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:.1%}"


def print_main(doc: dict[str, Any]) -> None:
    meta, data, proj = doc["meta"], doc["dataset"], doc["projection"]
    full = data["full_history_tokens"]
    print(
        f"\n{data['events']:,} events, {data['questions']} questions "
        f"({', '.join(f'{k} {v}' for k, v in sorted(data['categories'].items()))}); "
        f"{data['labels_verified']} evidence labels checked against the log"
    )
    print(
        f"extractor: {meta['llm']}; history source: "
        f"{'supported' if meta['history_supported'] else 'n/a (' + meta['history_probe'] + ')'}"
    )
    print(f"pasting a subject's whole history: {full['mean']:,.0f} tokens on average (max {full['max']:,})\n")
    rows = []
    for r in doc["rows"]:
        label = LABELS[r["system"]]
        if r["status"] != "measured":
            rows.append([label, f"{r['budget']:,}", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"])
            continue
        rows.append(
            [
                label,
                f"{r['budget']:,}",
                _pct(r["evidence_recall"]),
                _pct(r["answered"]),
                _pct(r["value_shown"]),
                f"{_pct(r['current_value_accuracy'])} of {r['changed_questions']}",
                _pct(r["superseded_unlabelled"]),
                f"{r['mean_tokens']:,.0f}",
                _pct(r["mean_tokens"] / full["mean"]),
            ]
        )
    print_table(
        [
            "system",
            "budget",
            "evidence recall",
            "answered",
            "value shown",
            "current value (changed)",
            "old value unlabelled",
            "tokens",
            "of whole history",
        ],
        rows,
    )
    print(
        "evidence recall: share of the labelled evidence events that reached the reader; answered: at\n"
        "least one did; current value: the new value shown above any unlabelled old one (changed and\n"
        "corrected facts); old value unlabelled: the old value shown on a line without a label."
    )
    budget = 2000 if any(r["budget"] == 2000 for r in doc["rows"]) else doc["rows"][0]["budget"]
    systems = [s for s in LABELS if f"{s}@{budget}" in doc["breakdown"]]
    groups = list(doc["breakdown"][f"naive@{budget}"])
    print(f"\nat {budget:,} tokens, by kind of fact: evidence recall / answered")
    print_table(
        ["facts", "n", *[LABELS[s] for s in systems]],
        [
            [
                group,
                str(doc["breakdown"][f"naive@{budget}"][group]["questions"]),
                *[
                    f"{_pct(doc['breakdown'][f'{s}@{budget}'][group]['evidence_recall'])} / "
                    f"{_pct(doc['breakdown'][f'{s}@{budget}'][group]['answered'])}"
                    for s in systems
                ],
            ]
            for group in groups
        ],
    )
    beliefs = doc["beliefs"]
    changed = beliefs["changed_facts"]
    print(
        f"\nsemantic tier: {beliefs['current_beliefs']} current beliefs "
        f"({', '.join(f'{k} {v}' for k, v in sorted(beliefs['beliefs_by_key'].items())) or 'none'}); "
        f"restated facts by beliefs holding the value: "
        f"{beliefs['restated_facts_by_number_of_beliefs_holding_the_value']}; changed facts: "
        f"{changed['belief_with_current_value']} of {changed['questions']} have a belief with the new value, "
        f"{changed['flagged']} flagged, {changed['belief_with_old_value']} still hold the old value; "
        f"{len(beliefs['beliefs_holding_no_fact_of_the_subject'])} beliefs hold none of the subject's values"
    )
    print(
        f"projection: {proj['events']:,} events in {proj['seconds']:.2f} s = {proj['events_per_s']:,.0f} "
        f"events/s (history passages indexed: {'yes' if proj['passages_indexed'] else 'no, n/a'}); "
        f"appending them over HTTP took {proj['append_seconds']:.1f} s"
    )
    reads = doc["reads_http"]
    print(
        f"context reads over HTTP in this run: {reads['samples']} reads, p50 {reads['p50_ms']:.1f} ms, "
        f"p99 {reads['p99_ms']:.1f} ms"
    )


def print_scale(scale: dict[str, Any]) -> None:
    print(f"\nscale: {scale['setup_note']}")
    print_table(
        ["read", "sources", "samples", "p50 ms", "p99 ms", "max ms", "cpu ms p50", "tokens"],
        [
            [r["mode"], r["include"], str(r["samples"]), f"{r['p50_ms']:.1f}", f"{r['p99_ms']:.1f}",
             f"{r['max_ms']:.1f}", f"{r.get('cpu_p50_ms', float('nan')):.1f}", str(r["used_tokens"])]
            for r in scale["reads"]
        ],
    )  # fmt: skip
    if "beside" in scale:
        beside = scale["beside"]
        print(f"\nreads over HTTP, every source, {beside['events']:,} events projected beside (run medians)")
        print_table(
            ["projector thread", "p50 ms", "p99 ms", "max ms", "projection events/s"],
            [
                [
                    setup,
                    f"{s['p50_ms']:.1f}",
                    f"{s['p99_ms']:.1f}",
                    f"{s['max_ms']:.1f}",
                    f"{s['events_per_s']:.1f}",
                ]
                for setup, s in beside["summary"].items()
            ],
        )


def print_bars(bars: dict[str, Any]) -> None:
    print("\nbars")
    for name, b in bars.items():
        verdict = "n/a " if b.get("value") is None else ("PASS" if b["pass"] else "FAIL")
        print(f"  {verdict}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")
