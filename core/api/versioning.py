"""API versions in the path (docs/api-changelog.md).

Every API route is served three times: under ``/api/v1/`` and ``/api/v2/`` (URL namespaces
``v1`` and ``v2`` around the apps' own namespaces) and under the unversioned ``/api/``, an
alias of ``/api/v1/`` kept for the clients written before versions were in the path. The
views are the same; :class:`PathVersioning` sets ``request.version`` from the namespace and
what differs between versions is only how a response is written (:func:`adapt_response`).

The schemas list the versioned paths only (:func:`versioned_paths_only`): ``/api/schema/`` and
``/api/v1/schema/`` describe 1.x, ``/api/v2/schema/`` describes 2.x (:data:`RELEASES`).

**v2 (2.0.0)**: a value that v1 writes as ``""`` for "not yet" is ``null``
(:data:`BLANK_MEANS_NONE`: a match's ``end_reason`` before it ends). v1 keeps ``""``: a
response field newly nullable, and an enum value removed, break v1 clients (the change
policy), so the change is a new major version rather than a change of v1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.versioning import NamespaceVersioning

DEFAULT_VERSION = "v1"
# The release each path version serves (the schema's ``info.version``).
RELEASES = {"v1": "1.16.0", "v2": "2.15.0"}
VERSIONED_PATH = re.compile(r"^/api/(v\d+)/")

# Keys whose value v1 writes as "" for "none yet", written as null from v2 on.
BLANK_MEANS_NONE = frozenset({"end_reason"})


class PathVersioning(NamespaceVersioning):
    """``request.version`` is the ``v1``/``v2`` URL namespace around the route; the unversioned
    ``/api/`` alias is ``v1``."""

    default_version = DEFAULT_VERSION
    allowed_versions = tuple(RELEASES)

    def determine_version(self, request: Any, *args: Any, **kwargs: Any) -> str:
        match = getattr(request, "resolver_match", None)
        for namespace in getattr(match, "namespaces", None) or ():
            if namespace in RELEASES:
                return str(namespace)
        return DEFAULT_VERSION


def version_of(request: Request | Any) -> str:
    return str(getattr(request, "version", None) or DEFAULT_VERSION)


def adapt(data: Any, version: str) -> Any:
    """``data`` (plain JSON values) as ``version`` writes it: v1 unchanged; v2 with ``null``
    for the blank "none yet" values of :data:`BLANK_MEANS_NONE`, at any depth."""
    if version == DEFAULT_VERSION:
        return data
    if isinstance(data, dict):
        return {
            k: None if (k in BLANK_MEANS_NONE and v == "") else adapt(v, version)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [adapt(v, version) for v in data]
    return data


class VersionedJSONRenderer(JSONRenderer):
    """The API's JSON renderer: writes each response as its request's version
    (:func:`adapt`). Bodies stored for idempotent replays are v1 JSON, adapted here too."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        request = (renderer_context or {}).get("request")
        if request is not None:
            data = adapt(data, version_of(request))
        return super().render(data, accepted_media_type, renderer_context)


def versioned_paths_only(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """drf-spectacular preprocessing hook: the schema lists ``/api/vN/...`` paths only (the
    unversioned ``/api/`` alias is the same operations as ``/api/v1/``)."""
    return [e for e in endpoints if VERSIONED_PATH.match(e[0])]


def set_release(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: ``info.version`` is the generated version's
    release (:data:`RELEASES`)."""
    version = getattr(generator, "api_version", None) or DEFAULT_VERSION
    result.setdefault("info", {})["version"] = RELEASES[version]
    return result
