from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attribution_type_1 import AttributionType1


T = TypeVar("T", bound="Contact")


@_attrs_define
class Contact:
    """The flattened contact. Custom properties appear as further keys.

    Attributes:
        id (str):
        first_name (str):
        last_name (str):
        full_name (str):
        company (str):
        company_id (None | str):
        email (str):
        mobile (str):
        city (str):
        city_code (str):
        state (str):
        state_code (str):
        lead_score (float):
        attribution (AttributionType1 | None):
        tags (list[str]):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        phone (str | Unset):
        country (None | str | Unset):
        id_type (None | str | Unset):
        id_number (None | str | Unset):
        linked_conversation_id (None | str | Unset):
    """

    id: str
    first_name: str
    last_name: str
    full_name: str
    company: str
    company_id: None | str
    email: str
    mobile: str
    city: str
    city_code: str
    state: str
    state_code: str
    lead_score: float
    attribution: AttributionType1 | None
    tags: list[str]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    phone: str | Unset = UNSET
    country: None | str | Unset = UNSET
    id_type: None | str | Unset = UNSET
    id_number: None | str | Unset = UNSET
    linked_conversation_id: None | str | Unset = UNSET
    additional_properties: dict[str, bool | float | str] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.attribution_type_1 import AttributionType1  # noqa: PLC0415

        id = self.id

        first_name = self.first_name

        last_name = self.last_name

        full_name = self.full_name

        company = self.company

        company_id: None | str
        company_id = self.company_id

        email = self.email

        mobile = self.mobile

        city = self.city

        city_code = self.city_code

        state = self.state

        state_code = self.state_code

        lead_score = self.lead_score

        attribution: dict[str, Any] | None
        if isinstance(self.attribution, AttributionType1):
            attribution = self.attribution.to_dict()
        else:
            attribution = self.attribution

        tags = self.tags

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        phone = self.phone

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

        id_number: None | str | Unset
        if isinstance(self.id_number, Unset):
            id_number = UNSET
        else:
            id_number = self.id_number

        linked_conversation_id: None | str | Unset
        if isinstance(self.linked_conversation_id, Unset):
            linked_conversation_id = UNSET
        else:
            linked_conversation_id = self.linked_conversation_id

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop

        field_dict.update(
            {
                "id": id,
                "firstName": first_name,
                "lastName": last_name,
                "fullName": full_name,
                "company": company,
                "companyId": company_id,
                "email": email,
                "mobile": mobile,
                "city": city,
                "cityCode": city_code,
                "state": state,
                "stateCode": state_code,
                "leadScore": lead_score,
                "attribution": attribution,
                "tags": tags,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )
        if phone is not UNSET:
            field_dict["phone"] = phone
        if country is not UNSET:
            field_dict["country"] = country
        if id_type is not UNSET:
            field_dict["idType"] = id_type
        if id_number is not UNSET:
            field_dict["idNumber"] = id_number
        if linked_conversation_id is not UNSET:
            field_dict["linkedConversationId"] = linked_conversation_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attribution_type_1 import AttributionType1  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        first_name = d.pop("firstName")

        last_name = d.pop("lastName")

        full_name = d.pop("fullName")

        company = d.pop("company")

        def _parse_company_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        company_id = _parse_company_id(d.pop("companyId"))

        email = d.pop("email")

        mobile = d.pop("mobile")

        city = d.pop("city")

        city_code = d.pop("cityCode")

        state = d.pop("state")

        state_code = d.pop("stateCode")

        lead_score = d.pop("leadScore")

        def _parse_attribution(data: object) -> AttributionType1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_attribution_type_1 = AttributionType1.from_dict(data)

                return componentsschemas_attribution_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AttributionType1 | None, data)

        attribution = _parse_attribution(d.pop("attribution"))

        tags = cast(list[str], d.pop("tags"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        phone = d.pop("phone", UNSET)

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

        def _parse_id_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id_number = _parse_id_number(d.pop("idNumber", UNSET))

        def _parse_linked_conversation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        linked_conversation_id = _parse_linked_conversation_id(d.pop("linkedConversationId", UNSET))

        contact = cls(
            id=id,
            first_name=first_name,
            last_name=last_name,
            full_name=full_name,
            company=company,
            company_id=company_id,
            email=email,
            mobile=mobile,
            city=city,
            city_code=city_code,
            state=state,
            state_code=state_code,
            lead_score=lead_score,
            attribution=attribution,
            tags=tags,
            created_at=created_at,
            updated_at=updated_at,
            phone=phone,
            country=country,
            id_type=id_type,
            id_number=id_number,
            linked_conversation_id=linked_conversation_id,
        )

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> bool | float | str:
                return cast(bool | float | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        contact.additional_properties = additional_properties
        return contact

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
