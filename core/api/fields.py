"""Serializer fields whose documented type depends on the API version (core.api.versioning).

Registering the drf-spectacular extension needs this module imported: ``core.apps`` does.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from core.api.versioning import version_of


class BlankUntilSetChoiceField(serializers.ChoiceField):
    """A choice that is not set yet for a while (a match's ``end_reason`` before it ends).

    v1 writes and documents "not yet" as ``""`` (an enum with a blank member); from v2 it is
    ``null`` (a nullable enum). The value is ``""`` here for both; the v2 renderer writes
    ``null`` (:func:`core.api.versioning.adapt`, which lists the keys)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)


class BlankUntilSetChoiceFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    target_class = BlankUntilSetChoiceField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        field = self.target
        v1 = version_of(getattr(auto_schema.view, "request", None)) == "v1"
        documented = serializers.ChoiceField(
            choices=list(field.choices.items()), allow_blank=v1, allow_null=not v1, read_only=True
        )
        documented.field_name = field.field_name
        schema = auto_schema._map_serializer_field(documented, direction, bypass_extensions=True)
        if not v1:
            schema = {**schema, "nullable": True}
        return schema
