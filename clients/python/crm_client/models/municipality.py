from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Municipality")


@_attrs_define
class Municipality:
    """
    Attributes:
        code (str):
        name (str):
        short_name (str):
        state_code (str):
        state_name (str):
        state_iso_2 (str):
        dane8 (str):
    """

    code: str
    name: str
    short_name: str
    state_code: str
    state_name: str
    state_iso_2: str
    dane8: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        name = self.name

        short_name = self.short_name

        state_code = self.state_code

        state_name = self.state_name

        state_iso_2 = self.state_iso_2

        dane8 = self.dane8

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "name": name,
                "shortName": short_name,
                "stateCode": state_code,
                "stateName": state_name,
                "stateIso2": state_iso_2,
                "dane8": dane8,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        name = d.pop("name")

        short_name = d.pop("shortName")

        state_code = d.pop("stateCode")

        state_name = d.pop("stateName")

        state_iso_2 = d.pop("stateIso2")

        dane8 = d.pop("dane8")

        municipality = cls(
            code=code,
            name=name,
            short_name=short_name,
            state_code=state_code,
            state_name=state_name,
            state_iso_2=state_iso_2,
            dane8=dane8,
        )

        municipality.additional_properties = d
        return municipality

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
