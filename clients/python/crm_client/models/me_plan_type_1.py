from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.me_plan_type_1_modules import MePlanType1Modules


T = TypeVar("T", bound="MePlanType1")


@_attrs_define
class MePlanType1:
    """
    Attributes:
        name (str):
        display_name (None | str):
        modules (MePlanType1Modules):
    """

    name: str
    display_name: None | str
    modules: MePlanType1Modules
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        display_name: None | str
        display_name = self.display_name

        modules = self.modules.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "displayName": display_name,
                "modules": modules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.me_plan_type_1_modules import MePlanType1Modules  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_display_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        display_name = _parse_display_name(d.pop("displayName"))

        modules = MePlanType1Modules.from_dict(d.pop("modules"))

        me_plan_type_1 = cls(
            name=name,
            display_name=display_name,
            modules=modules,
        )

        me_plan_type_1.additional_properties = d
        return me_plan_type_1

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
