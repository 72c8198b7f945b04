from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CityCandidate")


@_attrs_define
class CityCandidate:
    """
    Attributes:
        code (str):
        short_name (str):
        state_name (str):
        state_code (str):
    """

    code: str
    short_name: str
    state_name: str
    state_code: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        short_name = self.short_name

        state_name = self.state_name

        state_code = self.state_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "shortName": short_name,
                "stateName": state_name,
                "stateCode": state_code,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        short_name = d.pop("shortName")

        state_name = d.pop("stateName")

        state_code = d.pop("stateCode")

        city_candidate = cls(
            code=code,
            short_name=short_name,
            state_name=state_name,
            state_code=state_code,
        )

        city_candidate.additional_properties = d
        return city_candidate

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
