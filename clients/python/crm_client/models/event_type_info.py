from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.event_type_info_schema import EventTypeInfoSchema


T = TypeVar("T", bound="EventTypeInfo")


@_attrs_define
class EventTypeInfo:
    """One event type the host sends.

    Attributes:
        type_ (EventType): An event type the host sends: the `type` of a delivery's body (`Event`), one of this
            document's `webhooks`.
        description (str): When it is sent.
        schema (EventTypeInfoSchema): The JSON Schema (2020-12) of the body a delivery of this type POSTs: the `Event`
            envelope with this `type`.
    """

    type_: EventType
    description: str
    schema: EventTypeInfoSchema
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        description = self.description

        schema = self.schema.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "description": description,
                "schema": schema,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_info_schema import EventTypeInfoSchema  # noqa: PLC0415

        d = dict(src_dict)
        type_ = EventType(d.pop("type"))

        description = d.pop("description")

        schema = EventTypeInfoSchema.from_dict(d.pop("schema"))

        event_type_info = cls(
            type_=type_,
            description=description,
            schema=schema,
        )

        event_type_info.additional_properties = d
        return event_type_info

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
