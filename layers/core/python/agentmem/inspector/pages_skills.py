"""The Skills pages: the function-guidance link graph, one function with its dependency closure,
one guidance with its functions, drafts apart from approved entries."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agentmem.inspector import skill_views
from agentmem.inspector.web import Pages

MAX_TITLES = 150
"""Guidance titles fetched for the graph's labels (one read each); past it, ids label the nodes."""


def skill_routes(pages: Pages) -> list[Route]:
    def library(request: Request) -> Response:
        reader = pages.reader(request)
        guidance = reader.library("guidance").items
        functions = reader.library("function").items
        links = reader.links()
        titles = {g.id: reader.guidance(g.id).title for g in guidance[:MAX_TITLES]}
        approved_g, draft_g = skill_views.split_by_status(guidance)
        approved_f, draft_f = skill_views.split_by_status(functions)
        return pages.render(
            request,
            "skills.html",
            graph=skill_views.link_graph(guidance, functions, links, titles),
            review=[link for link in links if link.needs_review],
            approved_guidance=approved_g,
            draft_guidance=draft_g,
            approved_functions=approved_f,
            draft_functions=draft_f,
            titles=titles,
        )

    def function(request: Request) -> Response:
        reader = pages.reader(request)
        function_id = request.path_params["function_id"]
        found = reader.function(function_id)
        review = {
            link.guidance_id
            for link in reader.links()
            if link.function_id == function_id and link.needs_review
        }
        return pages.render(
            request, "function.html", function=found, closure=reader.closure(function_id), review=review
        )

    def guidance(request: Request) -> Response:
        reader = pages.reader(request)
        guidance_id = request.path_params["guidance_id"]
        found = reader.guidance(guidance_id)
        review = {
            link.function_id
            for link in reader.links()
            if link.guidance_id == guidance_id and link.needs_review
        }
        return pages.render(request, "guidance.html", guidance=found, review=review)

    return [
        Route("/skills", pages.guarded(library)),
        Route("/skills/functions/{function_id}", pages.guarded(function)),
        Route("/skills/guidance/{guidance_id}", pages.guarded(guidance)),
    ]
