from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus

T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """
    Attributes:
        id (str):
        event_id (str): The `webhook-id` header of every attempt.
        event_type (str):
        subscription (str): `<module>/<id>` of what asked for it, e.g. `automations/<automation id>`.
        url (str):
        status (DeliveryStatus): `disabled`: held while its endpoint is disabled (every attempt failed for 5 days); it
            goes out once the endpoint is enabled.
        attempts (int):
        last_status_code (int | None):
        last_error (None | str): Why the last attempt failed without an answer (timeout, connection, refused address).
        next_attempt_at (datetime.datetime | None):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    id: str
    event_id: str
    event_type: str
    subscription: str
    url: str
    status: DeliveryStatus
    attempts: int
    last_status_code: int | None
    last_error: None | str
    next_attempt_at: datetime.datetime | None
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_id = self.event_id

        event_type = self.event_type

        subscription = self.subscription

        url = self.url

        status = self.status.value

        attempts = self.attempts

        last_status_code: int | None
        last_status_code = self.last_status_code

        last_error: None | str
        last_error = self.last_error

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "eventId": event_id,
                "eventType": event_type,
                "subscription": subscription,
                "url": url,
                "status": status,
                "attempts": attempts,
                "lastStatusCode": last_status_code,
                "lastError": last_error,
                "nextAttemptAt": next_attempt_at,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        event_id = d.pop("eventId")

        event_type = d.pop("eventType")

        subscription = d.pop("subscription")

        url = d.pop("url")

        status = DeliveryStatus(d.pop("status"))

        attempts = d.pop("attempts")

        def _parse_last_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_status_code = _parse_last_status_code(d.pop("lastStatusCode"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("lastError"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        delivery = cls(
            id=id,
            event_id=event_id,
            event_type=event_type,
            subscription=subscription,
            url=url,
            status=status,
            attempts=attempts,
            last_status_code=last_status_code,
            last_error=last_error,
            next_attempt_at=next_attempt_at,
            created_at=created_at,
            updated_at=updated_at,
        )

        delivery.additional_properties = d
        return delivery

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
