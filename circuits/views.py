"""Public circuit pages: the list of circuits and one circuit's standings and tournaments.

A circuit page is a conditional GET: its weak ETag is the circuit version (the settings and
the member tournaments' versions, :func:`circuits.selectors.circuit_etag`), so an unchanged
page answers 304 after one query; the standings are read from the cached JSON document.
"""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from circuits.selectors import (
    PlayerFacts,
    circuit_etag,
    circuit_members,
    public_circuit,
    public_circuits,
    standings_bytes,
)


@require_GET
def circuit_list_page(request: HttpRequest) -> HttpResponse:
    return render(request, "circuits/list.html", {"circuits": public_circuits()})


@require_GET
def circuit_page(request: HttpRequest, slug: str) -> HttpResponse:
    circuit = public_circuit(slug=slug)
    if circuit is None:
        raise Http404("No such circuit.")
    members = circuit_members(circuit_id=circuit.pk)
    etag = circuit_etag(circuit, members)
    weak = f'W/"c{etag}-{get_language()}"'
    if weak in request.META.get("HTTP_IF_NONE_MATCH", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        doc = json.loads(standings_bytes(circuit, members, etag))
        names = {m.tournament_id: m.name for m in members}
        slugs = {m.tournament_id: m.slug for m in members}
        # Club and country tell namesakes apart, as a tournament's standings do: the
        # document holds them (the API's rows too).
        rows = [
            {
                **row,
                "facts": PlayerFacts(club=row["club"], country=row["country"]),
                "results": [
                    {
                        **r,
                        "tournament": names.get(r["tournament_id"], ""),
                        "slug": slugs.get(r["tournament_id"], ""),
                    }
                    for r in row["results"]
                ],
            }
            for row in doc["standings"]
        ]
        response = render(
            request,
            "circuits/circuit.html",
            {"circuit": circuit, "members": members, "rows": rows},
        )
    response["ETag"] = weak
    patch_cache_control(response, private=True, no_cache=True)
    return response
