"""Backward compatibility of the public API: the served schema against the released snapshot.

``docs/api/openapi-v1.json`` is the schema as released (docs/api-changelog.md). A change to
the API is compatible when every client written against the snapshot keeps working:

* incompatible: an operation, a parameter, a documented status or a response property
  removed; a response property no longer always sent, or newly nullable; an enum value
  removed (from a request or a response); a type changed; a request field or body newly
  required, or no longer accepting null; a request content type dropped;
* compatible: new operations, new optional parameters and request fields, new response
  properties and statuses, new enum values (docs/api-changelog.md: clients accept unknown
  values).
"""

from __future__ import annotations

import re
from typing import Any

METHODS = ("get", "put", "patch", "post", "delete")
VERSION_PREFIX = re.compile(r"^/api/v[0-9]+/")


class _Walker:
    def __init__(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.old, self.new = old, new
        self.breaks: list[str] = []
        self._seen: set[tuple[str, str, str]] = set()

    @staticmethod
    def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        for _ in range(20):
            ref = schema.get("$ref")
            if not ref:
                break
            schema = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        if "allOf" in schema and len(schema["allOf"]) == 1:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            return {**_Walker._resolve(spec, schema["allOf"][0]), **merged}
        return schema

    def schema(self, where: str, old: dict[str, Any], new: dict[str, Any], direction: str) -> None:
        key = (where, repr(old.get("$ref")), repr(new.get("$ref")))
        if old.get("$ref") and key in self._seen:
            return
        self._seen.add(key)
        o, n = self._resolve(self.old, old), self._resolve(self.new, new)
        old_enum, new_enum = self._enum(self.old, o), self._enum(self.new, n)
        if "oneOf" in o or "oneOf" in n:
            # Alternatives: their members are compared by their own components elsewhere; an
            # enum split into members (a choice or "" / null) is compared as one enum here.
            self._enum_and_null(where, o, n, old_enum, new_enum, direction)
            return
        if o.get("type") and n.get("type") and o["type"] != n["type"]:
            self.breaks.append(f"{where}: type {o['type']} -> {n['type']}")
            return
        self._enum_and_null(where, o, n, old_enum, new_enum, direction)
        old_props, new_props = o.get("properties", {}), n.get("properties", {})
        old_req, new_req = set(o.get("required", [])), set(n.get("required", []))
        for name, sub in old_props.items():
            if name not in new_props:
                self.breaks.append(f"{where}.{name}: removed")
                continue
            if direction == "response" and name in old_req and name not in new_req:
                self.breaks.append(f"{where}.{name}: no longer always sent")
            self.schema(f"{where}.{name}", sub, new_props[name], direction)
        if direction == "request":
            for name in sorted(new_req - old_req):
                self.breaks.append(f"{where}.{name}: newly required")
        if "items" in o and "items" in n:
            self.schema(f"{where}[]", o["items"], n["items"], direction)

    def _enum(self, spec: dict[str, Any], schema: dict[str, Any]) -> set[str]:
        values = set(map(str, schema.get("enum", [])))
        for member in schema.get("oneOf", []):
            member_values = self._enum(spec, self._resolve(spec, member))
            if not member_values:
                return set()  # not an enum throughout: nothing to compare
            values |= member_values
        return values

    def _enum_and_null(
        self,
        where: str,
        o: dict[str, Any],
        n: dict[str, Any],
        old_enum: set[str],
        new_enum: set[str],
        direction: str,
    ) -> None:
        if old_enum and new_enum:
            removed = old_enum - new_enum
            if removed and direction == "request":
                self.breaks.append(f"{where}: request enum values removed {sorted(removed)}")
            if removed and direction == "response":
                self.breaks.append(f"{where}: response enum values removed {sorted(removed)}")
        if o.get("nullable") and not n.get("nullable") and direction == "request":
            self.breaks.append(f"{where}: no longer accepts null")
        if n.get("nullable") and not o.get("nullable") and direction == "response":
            self.breaks.append(f"{where}: may now be null")


def unversioned(path: str) -> str:
    """``/api/v1/x`` as ``/api/x``: the unversioned path is an alias of v1's, and a path's
    operation is compared with the same operation of the other schema (core.api.versioning)."""
    return VERSION_PREFIX.sub("/api/", path)


def incompatible_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Every change from ``old`` (released) to ``new`` that can break an existing client."""
    walker = _Walker(old, new)
    new_paths = {unversioned(p): ops for p, ops in new.get("paths", {}).items()}
    for path, old_ops in old.get("paths", {}).items():
        path = unversioned(path)
        new_ops = new_paths.get(path, {})
        for method in METHODS:
            if method not in old_ops:
                continue
            where = f"{method.upper()} {path}"
            if method not in new_ops:
                walker.breaks.append(f"{where}: operation removed")
                continue
            o, n = old_ops[method], new_ops[method]
            old_params = {(p["in"], p["name"]): p for p in o.get("parameters", [])}
            new_params = {(p["in"], p["name"]): p for p in n.get("parameters", [])}
            for key, p in new_params.items():
                if p.get("required") and key not in old_params:
                    walker.breaks.append(f"{where}: new required parameter {key[1]}")
            for key in old_params:
                if key not in new_params and key[0] != "header":
                    walker.breaks.append(f"{where}: parameter {key[1]} removed")
            ob, nb = o.get("requestBody"), n.get("requestBody")
            if nb and nb.get("required") and not (ob and ob.get("required")):
                walker.breaks.append(f"{where}: request body newly required")
            if ob and nb:
                for media, content in ob.get("content", {}).items():
                    if media not in nb.get("content", {}):
                        walker.breaks.append(f"{where}: no longer reads {media}")
                        continue
                    walker.schema(
                        f"{where} body",
                        content["schema"],
                        nb["content"][media]["schema"],
                        "request",
                    )
            for status, response in o.get("responses", {}).items():
                new_response = n.get("responses", {}).get(status)
                if new_response is None:
                    walker.breaks.append(f"{where}: response {status} removed")
                    continue
                for media, content in response.get("content", {}).items():
                    new_content = new_response.get("content", {}).get(media)
                    if new_content is None:
                        walker.breaks.append(f"{where} {status}: no longer {media}")
                        continue
                    walker.schema(
                        f"{where} {status}", content["schema"], new_content["schema"], "response"
                    )
    return walker.breaks
