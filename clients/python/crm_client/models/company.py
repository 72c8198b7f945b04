from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Company")


@_attrs_define
class Company:
    """
    Attributes:
        id (str):
        name (str):
        city (str):
        city_code (str):
        state (str):
        state_code (str):
        id_type (None | str): The DIAN document type code (`31` for a NIT), as a contact's.
        id_number (None | str): Validated against `idType` (a NIT's check digit), as a contact's.
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        country (None | str | Unset):
    """

    id: str
    name: str
    city: str
    city_code: str
    state: str
    state_code: str
    id_type: None | str
    id_number: None | str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    country: None | str | Unset = UNSET
    additional_properties: dict[str, bool | float | str] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        city = self.city

        city_code = self.city_code

        state = self.state

        state_code = self.state_code

        id_type: None | str
        id_type = self.id_type

        id_number: None | str
        id_number = self.id_number

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        country: None | str | Unset
        if isinstance(self.country, Unset):
            country = UNSET
        else:
            country = self.country

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop

        field_dict.update(
            {
                "id": id,
                "name": name,
                "city": city,
                "cityCode": city_code,
                "state": state,
                "stateCode": state_code,
                "idType": id_type,
                "idNumber": id_number,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )
        if country is not UNSET:
            field_dict["country"] = country

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        city = d.pop("city")

        city_code = d.pop("cityCode")

        state = d.pop("state")

        state_code = d.pop("stateCode")

        def _parse_id_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id_type = _parse_id_type(d.pop("idType"))

        def _parse_id_number(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id_number = _parse_id_number(d.pop("idNumber"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        def _parse_country(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        country = _parse_country(d.pop("country", UNSET))

        company = cls(
            id=id,
            name=name,
            city=city,
            city_code=city_code,
            state=state,
            state_code=state_code,
            id_type=id_type,
            id_number=id_number,
            created_at=created_at,
            updated_at=updated_at,
            country=country,
        )

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> bool | float | str:
                return cast(bool | float | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        company.additional_properties = additional_properties
        return company

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> bool | float | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: bool | float | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
