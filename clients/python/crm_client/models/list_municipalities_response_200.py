from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.municipality import Municipality


T = TypeVar("T", bound="ListMunicipalitiesResponse200")


@_attrs_define
class ListMunicipalitiesResponse200:
    """
    Attributes:
        success (Literal[True]):
        data (list[Municipality]):
        version (str):
        count (int):
    """

    success: Literal[True]
    data: list[Municipality]
    version: str
    count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        version = self.version

        count = self.count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "data": data,
                "version": version,
                "count": count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.municipality import Municipality  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = Municipality.from_dict(data_item_data)

            data.append(data_item)

        version = d.pop("version")

        count = d.pop("count")

        list_municipalities_response_200 = cls(
            success=success,
            data=data,
            version=version,
            count=count,
        )

        list_municipalities_response_200.additional_properties = d
        return list_municipalities_response_200

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
