from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="TestWebhookBody")


@_attrs_define
class TestWebhookBody:
    """
    Attributes:
        url (str):
        type_ (EventType | None | Unset): Absent or null: `contact.created`.
    """

    url: str
    type_: EventType | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, EventType):
            type_ = self.type_.value
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        def _parse_type_(data: object) -> EventType | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_0 = EventType(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventType | None | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        test_webhook_body = cls(
            url=url,
            type_=type_,
        )

        return test_webhook_body
