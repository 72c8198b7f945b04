from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.event_data import EventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """What every delivery POSTs (`content-type: application/json`).

    Attributes:
        id (str): Also the `webhook-id` header: the same on every retry, so a receiver de-duplicates by it.
        type_ (EventType): An event type the host sends: the `type` of a delivery's body (`Event`), one of this
            document's `webhooks`.
        occurred_at (datetime.datetime):
        organization_id (str):
        data (EventData): The object after the change: the conversation (with `pipelineId`, `fromStage`, `toStage`,
            `stageName`, `enteredAt`), the deal (with `fromStage` and `toStage`), the contact as `GET /contacts/{id}` shows
            it, or the submission, or the disabled endpoint (`url`, `failingSince`, `disabledAt`, `lastError`).
    """

    id: str
    type_: EventType
    occurred_at: datetime.datetime
    organization_id: str
    data: EventData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        occurred_at = self.occurred_at.isoformat()

        organization_id = self.organization_id

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "occurredAt": occurred_at,
                "organizationId": organization_id,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_data import EventData  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = EventType(d.pop("type"))

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurredAt"))

        organization_id = d.pop("organizationId")

        data = EventData.from_dict(d.pop("data"))

        event = cls(
            id=id,
            type_=type_,
            occurred_at=occurred_at,
            organization_id=organization_id,
            data=data,
        )

        event.additional_properties = d
        return event

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
