"""The Sessions and Subjects pages, and the fetch link of a blob."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agentmem.client import MemoryApiError
from agentmem.inspector import memory_views
from agentmem.inspector.memory_views import EventKey, Extracted
from agentmem.inspector.reader import MemoryReader, checked_id
from agentmem.inspector.web import SECURITY_HEADERS, Pages, int_param, text_param

PAGE_EVENTS = 500  # events per page of a session timeline
MAX_CHAINS = 100  # version chains read to say what each event gave (one API call each)


def extraction(reader: MemoryReader, subjects: list[str]) -> dict[EventKey, list[Extracted]] | None:
    """What each event gave the subjects' beliefs, read from their version chains (current and
    archived: an event whose version was since replaced still gave it). None when a subject has
    more keys than MAX_CHAINS, or its beliefs cannot be read: the page then says nothing, rather
    than "no fact read" for an event whose chain it did not look at."""
    found: dict[EventKey, list[Extracted]] = {}
    for subject_id in subjects:
        try:
            keys = sorted({b.key for b in reader.beliefs(subject_id)})
            if len(keys) > MAX_CHAINS:
                return None
            for key in keys:
                chain = reader.chain(subject_id, key)
                for event, gave in memory_views.extracted_by_event(chain.history or chain.current).items():
                    found.setdefault(event, []).extend(gave)
        except MemoryApiError as exc:
            if exc.status != 404:
                raise
            return None
    return found


def memory_routes(pages: Pages) -> list[Route]:
    def home(request: Request) -> Response:
        return pages.render(request, "home.html", saved=pages.config.saved_reads)

    def find_subject(request: Request) -> Response:
        subject = text_param(request, "subject_id")
        if subject is None:
            return RedirectResponse("/ui", status_code=303)
        return RedirectResponse(f"/ui/subjects/{checked_id(subject, 'subject_id')}", status_code=303)

    def find_session(request: Request) -> Response:
        session = text_param(request, "session_id")
        if session is None:
            return RedirectResponse("/ui", status_code=303)
        return RedirectResponse(f"/ui/sessions/{checked_id(session, 'session_id')}", status_code=303)

    def subject(request: Request) -> Response:
        subject_id = request.path_params["subject_id"]
        reader = pages.reader(request)
        beliefs = reader.beliefs(subject_id)
        try:
            sessions = reader.sessions(subject_id)
        except MemoryApiError as exc:
            if exc.status != 404:  # an API without the listing: the sessions its beliefs cite
                raise
            sessions = memory_views.sessions_of(beliefs)
        return pages.render(
            request,
            "subject.html",
            subject_id=subject_id,
            groups=memory_views.current_beliefs(beliefs),
            sessions=sessions,
        )

    def chain(request: Request) -> Response:
        subject_id, key = request.path_params["subject_id"], request.path_params["key"]
        view = pages.reader(request).chain(subject_id, key)
        return pages.render(
            request,
            "chain.html",
            subject_id=subject_id,
            key=key,
            chains=memory_views.chains(view.history or view.current),
            is_set=any(b.member for b in view.current),
        )

    def session(request: Request) -> Response:
        session_id = request.path_params["session_id"]
        after = int_param(request, "after", 0) or 0
        reader = pages.reader(request)
        page = reader.events(session_id, after=after, limit=PAGE_EVENTS)
        round_filter = int_param(request, "round")
        subjects = sorted({e.subject_id for e in page.items})
        timeline = memory_views.session_timeline(
            page.items,
            agent=text_param(request, "agent"),
            round=round_filter,
            kind=text_param(request, "kind"),
            extracted=extraction(reader, subjects),
        )
        return pages.render(
            request,
            "session.html",
            session_id=session_id,
            timeline=timeline,
            subjects=subjects,
            after=after,
            next_after=page.next,
            filters={
                "agent": text_param(request, "agent"),
                "round": round_filter,
                "kind": text_param(request, "kind"),
            },
        )

    def blob(request: Request) -> Response:
        """The event's content, blob resolved, as plain text: never rendered as a page."""
        session_id = request.path_params["session_id"]
        event = pages.reader(request).event_with_content(session_id, int(request.path_params["seq"]))
        if event is None:
            raise MemoryApiError(
                404, "not_found", f"no event #{request.path_params['seq']} in {session_id}", "seq"
            )
        body = memory_views.content_text(event)
        headers = {
            **SECURITY_HEADERS,
            "Content-Disposition": f'inline; filename="{session_id}-{event.seq}.txt"',
        }
        return Response(body, media_type="text/plain; charset=utf-8", headers=headers)

    return [
        Route("/", pages.guarded(home)),
        Route("/subjects", pages.guarded(find_subject)),
        Route("/subjects/{subject_id}", pages.guarded(subject)),
        Route("/subjects/{subject_id}/beliefs/{key}", pages.guarded(chain)),
        Route("/sessions", pages.guarded(find_session)),
        Route("/sessions/{session_id}", pages.guarded(session)),
        Route("/sessions/{session_id}/events/{seq:int}/content", pages.guarded(blob)),
    ]
