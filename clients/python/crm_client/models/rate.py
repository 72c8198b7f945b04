from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Rate")


@_attrs_define
class Rate:
    """
    Attributes:
        provider (str):
        carrier (str):
        service (str):
        price (float):
        currency (str):
        service_description (None | str | Unset):
        delivery_estimate (None | str | Unset):
    """

    provider: str
    carrier: str
    service: str
    price: float
    currency: str
    service_description: None | str | Unset = UNSET
    delivery_estimate: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider

        carrier = self.carrier

        service = self.service

        price = self.price

        currency = self.currency

        service_description: None | str | Unset
        if isinstance(self.service_description, Unset):
            service_description = UNSET
        else:
            service_description = self.service_description

        delivery_estimate: None | str | Unset
        if isinstance(self.delivery_estimate, Unset):
            delivery_estimate = UNSET
        else:
            delivery_estimate = self.delivery_estimate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "carrier": carrier,
                "service": service,
                "price": price,
                "currency": currency,
            }
        )
        if service_description is not UNSET:
            field_dict["serviceDescription"] = service_description
        if delivery_estimate is not UNSET:
            field_dict["deliveryEstimate"] = delivery_estimate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        provider = d.pop("provider")

        carrier = d.pop("carrier")

        service = d.pop("service")

        price = d.pop("price")

        currency = d.pop("currency")

        def _parse_service_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        service_description = _parse_service_description(d.pop("serviceDescription", UNSET))

        def _parse_delivery_estimate(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        delivery_estimate = _parse_delivery_estimate(d.pop("deliveryEstimate", UNSET))

        rate = cls(
            provider=provider,
            carrier=carrier,
            service=service,
            price=price,
            currency=currency,
            service_description=service_description,
            delivery_estimate=delivery_estimate,
        )

        rate.additional_properties = d
        return rate

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
