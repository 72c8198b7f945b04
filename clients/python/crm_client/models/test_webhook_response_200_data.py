from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TestWebhookResponse200Data")


@_attrs_define
class TestWebhookResponse200Data:
    """
    Attributes:
        status (int | None): The receiver's status; null when no answer came.
        latency_ms (int):
        body (str): The first 1,024 bytes of the receiver's answer, as text.
        error (str | Unset): Why no answer came (a refused address, a failed connection, a timeout).
    """

    status: int | None
    latency_ms: int
    body: str
    error: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status: int | None
        status = self.status

        latency_ms = self.latency_ms

        body = self.body

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "latencyMs": latency_ms,
                "body": body,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status = _parse_status(d.pop("status"))

        latency_ms = d.pop("latencyMs")

        body = d.pop("body")

        error = d.pop("error", UNSET)

        test_webhook_response_200_data = cls(
            status=status,
            latency_ms=latency_ms,
            body=body,
            error=error,
        )

        test_webhook_response_200_data.additional_properties = d
        return test_webhook_response_200_data

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
