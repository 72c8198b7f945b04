from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UpdateNotificationBody")


@_attrs_define
class UpdateNotificationBody:
    """
    Attributes:
        read (bool):
    """

    read: bool

    def to_dict(self) -> dict[str, Any]:
        read = self.read

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "read": read,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        read = d.pop("read")

        update_notification_body = cls(
            read=read,
        )

        return update_notification_body
