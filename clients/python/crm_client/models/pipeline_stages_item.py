from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PipelineStagesItem")


@_attrs_define
class PipelineStagesItem:
    """
    Attributes:
        id (str):
        name (str):
        webhook_url (None | str):
        webhook_max_per_second (int | Unset): At most this many `webhookUrl` deliveries a second. Shown only when set.
        webhook_ordered (bool | Unset): `true`: one conversation's moves reach `webhookUrl` in the order they were made.
            Shown only when `true`.
    """

    id: str
    name: str
    webhook_url: None | str
    webhook_max_per_second: int | Unset = UNSET
    webhook_ordered: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        webhook_url: None | str
        webhook_url = self.webhook_url

        webhook_max_per_second = self.webhook_max_per_second

        webhook_ordered = self.webhook_ordered

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "webhookUrl": webhook_url,
            }
        )
        if webhook_max_per_second is not UNSET:
            field_dict["webhookMaxPerSecond"] = webhook_max_per_second
        if webhook_ordered is not UNSET:
            field_dict["webhookOrdered"] = webhook_ordered

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        def _parse_webhook_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        webhook_url = _parse_webhook_url(d.pop("webhookUrl"))

        webhook_max_per_second = d.pop("webhookMaxPerSecond", UNSET)

        webhook_ordered = d.pop("webhookOrdered", UNSET)

        pipeline_stages_item = cls(
            id=id,
            name=name,
            webhook_url=webhook_url,
            webhook_max_per_second=webhook_max_per_second,
            webhook_ordered=webhook_ordered,
        )

        pipeline_stages_item.additional_properties = d
        return pipeline_stages_item

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
