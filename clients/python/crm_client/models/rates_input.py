from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.destination import Destination
    from ..models.package import Package


T = TypeVar("T", bound="RatesInput")


@_attrs_define
class RatesInput:
    """
    Attributes:
        contact_id (str):
        packages (list[Package]):
        destination (Destination | None | Unset):
    """

    contact_id: str
    packages: list[Package]
    destination: Destination | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.destination import Destination  # noqa: PLC0415

        contact_id = self.contact_id

        packages = []
        for packages_item_data in self.packages:
            packages_item = packages_item_data.to_dict()
            packages.append(packages_item)

        destination: dict[str, Any] | None | Unset
        if isinstance(self.destination, Unset):
            destination = UNSET
        elif isinstance(self.destination, Destination):
            destination = self.destination.to_dict()
        else:
            destination = self.destination

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "contactId": contact_id,
                "packages": packages,
            }
        )
        if destination is not UNSET:
            field_dict["destination"] = destination

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.destination import Destination  # noqa: PLC0415
        from ..models.package import Package  # noqa: PLC0415

        d = dict(src_dict)
        contact_id = d.pop("contactId")

        packages = []
        _packages = d.pop("packages")
        for packages_item_data in _packages:
            packages_item = Package.from_dict(packages_item_data)

            packages.append(packages_item)

        def _parse_destination(data: object) -> Destination | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_type_1 = Destination.from_dict(data)

                return destination_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Destination | None | Unset, data)

        destination = _parse_destination(d.pop("destination", UNSET))

        rates_input = cls(
            contact_id=contact_id,
            packages=packages,
            destination=destination,
        )

        rates_input.additional_properties = d
        return rates_input

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
