from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.package_dimensions import PackageDimensions


T = TypeVar("T", bound="Package")


@_attrs_define
class Package:
    """
    Attributes:
        weight (float):
        dimensions (PackageDimensions):
        content (str | Unset):
        declared_value (float | Unset):
    """

    weight: float
    dimensions: PackageDimensions
    content: str | Unset = UNSET
    declared_value: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        weight = self.weight

        dimensions = self.dimensions.to_dict()

        content = self.content

        declared_value = self.declared_value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "weight": weight,
                "dimensions": dimensions,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if declared_value is not UNSET:
            field_dict["declaredValue"] = declared_value

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.package_dimensions import PackageDimensions  # noqa: PLC0415

        d = dict(src_dict)
        weight = d.pop("weight")

        dimensions = PackageDimensions.from_dict(d.pop("dimensions"))

        content = d.pop("content", UNSET)

        declared_value = d.pop("declaredValue", UNSET)

        package = cls(
            weight=weight,
            dimensions=dimensions,
            content=content,
            declared_value=declared_value,
        )

        package.additional_properties = d
        return package

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
