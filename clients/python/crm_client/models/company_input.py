from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CompanyInput")


@_attrs_define
class CompanyInput:
    """`name` is required on POST. Location and identity document (`idType`, `idNumber`) as on contacts. Other keys are
    custom properties; `null` is the same as an absent field.

        Attributes:
            name (None | str | Unset):
            city (None | str | Unset):
            city_code (None | str | Unset):
            state (None | str | Unset):
            country (None | str | Unset):
            id_type (None | str | Unset): A document type as people write it (`NIT`, `RUT`, `CC`, `31`...): 422
                `ID_TYPE_UNRESOLVED` when it maps to no DIAN code.
            id_number (float | None | str | Unset): Validated against the type sent, else the stored one: 400
                `INVALID_ID_NUMBER` (with `field`).
    """

    name: None | str | Unset = UNSET
    city: None | str | Unset = UNSET
    city_code: None | str | Unset = UNSET
    state: None | str | Unset = UNSET
    country: None | str | Unset = UNSET
    id_type: None | str | Unset = UNSET
    id_number: float | None | str | Unset = UNSET
    additional_properties: dict[str, bool | float | None | str] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        city: None | str | Unset
        if isinstance(self.city, Unset):
            city = UNSET
        else:
            city = self.city

        city_code: None | str | Unset
        if isinstance(self.city_code, Unset):
            city_code = UNSET
        else:
            city_code = self.city_code

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        else:
            state = self.state

        country: None | str | Unset
        if isinstance(self.country, Unset):
            country = UNSET
        else:
            country = self.country

        id_type: None | str | Unset
        if isinstance(self.id_type, Unset):
            id_type = UNSET
        else:
            id_type = self.id_type

        id_number: float | None | str | Unset
        if isinstance(self.id_number, Unset):
            id_number = UNSET
        else:
            id_number = self.id_number

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if city is not UNSET:
            field_dict["city"] = city
        if city_code is not UNSET:
            field_dict["cityCode"] = city_code
        if state is not UNSET:
            field_dict["state"] = state
        if country is not UNSET:
            field_dict["country"] = country
        if id_type is not UNSET:
            field_dict["idType"] = id_type
        if id_number is not UNSET:
            field_dict["idNumber"] = id_number

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_city(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        city = _parse_city(d.pop("city", UNSET))

        def _parse_city_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        city_code = _parse_city_code(d.pop("cityCode", UNSET))

        def _parse_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        def _parse_country(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        country = _parse_country(d.pop("country", UNSET))

        def _parse_id_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id_type = _parse_id_type(d.pop("idType", UNSET))

        def _parse_id_number(data: object) -> float | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | str | Unset, data)

        id_number = _parse_id_number(d.pop("idNumber", UNSET))

        company_input = cls(
            name=name,
            city=city,
            city_code=city_code,
            state=state,
            country=country,
            id_type=id_type,
            id_number=id_number,
        )

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> bool | float | None | str:
                if data is None:
                    return data
                return cast(bool | float | None | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        company_input.additional_properties = additional_properties
        return company_input

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> bool | float | None | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: bool | float | None | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
