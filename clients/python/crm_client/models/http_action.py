from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.http_action_headers_type_0 import HttpActionHeadersType0


T = TypeVar("T", bound="HttpAction")


@_attrs_define
class HttpAction:
    """
    Attributes:
        type_ (Literal['http_request']):
        url (str): `https` to a public address (400 `WEBHOOK_URL_NOT_ALLOWED` otherwise, unless the operator sets
            `CRM_WEBHOOK_ALLOW_PRIVATE`).
        headers (HttpActionHeadersType0 | None | Unset): Extra headers; not `content-type`, `host` nor the `webhook-*`
            ones the host sets.
        max_per_second (int | None | Unset): At most this many deliveries a second to `url`: a backlog drains at this
            pace, never faster. Shown only when set.
        ordered (bool | None | Unset): `true`: one resource's events (the same `data.id`) arrive in the order they were
            committed; a later one waits until the one before is delivered or has failed. Shown only when `true`.
    """

    type_: Literal["http_request"]
    url: str
    headers: HttpActionHeadersType0 | None | Unset = UNSET
    max_per_second: int | None | Unset = UNSET
    ordered: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.http_action_headers_type_0 import HttpActionHeadersType0  # noqa: PLC0415

        type_ = self.type_

        url = self.url

        headers: dict[str, Any] | None | Unset
        if isinstance(self.headers, Unset):
            headers = UNSET
        elif isinstance(self.headers, HttpActionHeadersType0):
            headers = self.headers.to_dict()
        else:
            headers = self.headers

        max_per_second: int | None | Unset
        if isinstance(self.max_per_second, Unset):
            max_per_second = UNSET
        else:
            max_per_second = self.max_per_second

        ordered: bool | None | Unset
        if isinstance(self.ordered, Unset):
            ordered = UNSET
        else:
            ordered = self.ordered

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "url": url,
            }
        )
        if headers is not UNSET:
            field_dict["headers"] = headers
        if max_per_second is not UNSET:
            field_dict["maxPerSecond"] = max_per_second
        if ordered is not UNSET:
            field_dict["ordered"] = ordered

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.http_action_headers_type_0 import HttpActionHeadersType0  # noqa: PLC0415

        d = dict(src_dict)
        type_ = cast(Literal["http_request"], d.pop("type"))
        if type_ != "http_request":
            raise ValueError(f"type must match const 'http_request', got '{type_}'")

        url = d.pop("url")

        def _parse_headers(data: object) -> HttpActionHeadersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                headers_type_0 = HttpActionHeadersType0.from_dict(data)

                return headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpActionHeadersType0 | None | Unset, data)

        headers = _parse_headers(d.pop("headers", UNSET))

        def _parse_max_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_per_second = _parse_max_per_second(d.pop("maxPerSecond", UNSET))

        def _parse_ordered(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ordered = _parse_ordered(d.pop("ordered", UNSET))

        http_action = cls(
            type_=type_,
            url=url,
            headers=headers,
            max_per_second=max_per_second,
            ordered=ordered,
        )

        return http_action
