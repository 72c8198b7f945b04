from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.failed_rate import FailedRate
    from ..models.rate import Rate


T = TypeVar("T", bound="QuoteShipmentResponse200")


@_attrs_define
class QuoteShipmentResponse200:
    """
    Attributes:
        success (Literal[True]):
        rates (list[Rate]):
        failed (list[FailedRate]):
    """

    success: Literal[True]
    rates: list[Rate]
    failed: list[FailedRate]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        rates = []
        for rates_item_data in self.rates:
            rates_item = rates_item_data.to_dict()
            rates.append(rates_item)

        failed = []
        for failed_item_data in self.failed:
            failed_item = failed_item_data.to_dict()
            failed.append(failed_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "rates": rates,
                "failed": failed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.failed_rate import FailedRate  # noqa: PLC0415
        from ..models.rate import Rate  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        rates = []
        _rates = d.pop("rates")
        for rates_item_data in _rates:
            rates_item = Rate.from_dict(rates_item_data)

            rates.append(rates_item)

        failed = []
        _failed = d.pop("failed")
        for failed_item_data in _failed:
            failed_item = FailedRate.from_dict(failed_item_data)

            failed.append(failed_item)

        quote_shipment_response_200 = cls(
            success=success,
            rates=rates,
            failed=failed,
        )

        quote_shipment_response_200.additional_properties = d
        return quote_shipment_response_200

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
