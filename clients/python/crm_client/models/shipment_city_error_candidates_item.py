from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ShipmentCityErrorCandidatesItem")


@_attrs_define
class ShipmentCityErrorCandidatesItem:
    """
    Attributes:
        code (str):
        dane8 (str):
        name (str):
        state_code (str):
        state_name (str):
        state_iso (str):
    """

    code: str
    dane8: str
    name: str
    state_code: str
    state_name: str
    state_iso: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        dane8 = self.dane8

        name = self.name

        state_code = self.state_code

        state_name = self.state_name

        state_iso = self.state_iso

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "dane8": dane8,
                "name": name,
                "stateCode": state_code,
                "stateName": state_name,
                "stateIso": state_iso,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        dane8 = d.pop("dane8")

        name = d.pop("name")

        state_code = d.pop("stateCode")

        state_name = d.pop("stateName")

        state_iso = d.pop("stateIso")

        shipment_city_error_candidates_item = cls(
            code=code,
            dane8=dane8,
            name=name,
            state_code=state_code,
            state_name=state_name,
            state_iso=state_iso,
        )

        shipment_city_error_candidates_item.additional_properties = d
        return shipment_city_error_candidates_item

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
