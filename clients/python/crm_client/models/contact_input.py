from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContactInput")


@_attrs_define
class ContactInput:
    """At least one of `email`, `mobile`/`whatsapp_phone` or `linkedConversationId` (POST). Location: a valid `cityCode`,
    or a `city` that resolves without doubt (`state` as a hint). Other keys of letters, digits, `_`, `.`, `-` are custom
    properties (text, number or boolean); server-owned keys (`id`, `stateCode`, `leadScore`, `createdAt`, ...) are
    ignored; `null` is the same as an absent field (and removes a custom property). Limits: docs/integrators.md, Limits.

        Attributes:
            email (None | str | Unset): One `@` between non-empty parts, no spaces inside, at most 254 bytes; trimmed; blank
                is absent.
            mobile (float | None | str | Unset): 7 to 15 digits, written with spaces, `-`, `.`, `(`, `)`, `/` or `+` if you
                like (a letter is refused), or a JSON number read as its digits.
            whatsapp_phone (float | None | str | Unset): 7 to 15 digits, written with spaces, `-`, `.`, `(`, `)`, `/` or `+`
                if you like (a letter is refused), or a JSON number read as its digits.
            phone (None | str | Unset):
            firstName (None | str | Unset):
            first_name (None | str | Unset):
            lastName (None | str | Unset):
            last_name (None | str | Unset):
            company (None | str | Unset):
            company_id (None | str | Unset):
            city (None | str | Unset):
            city_code (None | str | Unset):
            state (None | str | Unset):
            country (None | str | Unset):
            id_type (None | str | Unset):
            id_number (float | None | str | Unset): Text, or a JSON number read as its digits.
            linked_conversation_id (None | str | Unset):
            tags (list[str] | None | Unset): A set: blanks and repeats (compared without case or accents: `VIP` and `vip`)
                are dropped, the first spelling and the order sent kept.
    """

    email: None | str | Unset = UNSET
    mobile: float | None | str | Unset = UNSET
    whatsapp_phone: float | None | str | Unset = UNSET
    phone: None | str | Unset = UNSET
    firstName: None | str | Unset = UNSET
    first_name: None | str | Unset = UNSET
    lastName: None | str | Unset = UNSET
    last_name: None | str | Unset = UNSET
    company: None | str | Unset = UNSET
    company_id: None | str | Unset = UNSET
    city: None | str | Unset = UNSET
    city_code: None | str | Unset = UNSET
    state: None | str | Unset = UNSET
    country: None | str | Unset = UNSET
    id_type: None | str | Unset = UNSET
    id_number: float | None | str | Unset = UNSET
    linked_conversation_id: None | str | Unset = UNSET
    tags: list[str] | None | Unset = UNSET
    additional_properties: dict[str, bool | float | None | str] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        email: None | str | Unset
        if isinstance(self.email, Unset):
            email = UNSET
        else:
            email = self.email

        mobile: float | None | str | Unset
        if isinstance(self.mobile, Unset):
            mobile = UNSET
        else:
            mobile = self.mobile

        whatsapp_phone: float | None | str | Unset
        if isinstance(self.whatsapp_phone, Unset):
            whatsapp_phone = UNSET
        else:
            whatsapp_phone = self.whatsapp_phone

        phone: None | str | Unset
        if isinstance(self.phone, Unset):
            phone = UNSET
        else:
            phone = self.phone

        firstName: None | str | Unset
        if isinstance(self.firstName, Unset):
            firstName = UNSET
        else:
            firstName = self.firstName

        first_name: None | str | Unset
        if isinstance(self.first_name, Unset):
            first_name = UNSET
        else:
            first_name = self.first_name

        lastName: None | str | Unset
        if isinstance(self.lastName, Unset):
            lastName = UNSET
        else:
            lastName = self.lastName

        last_name: None | str | Unset
        if isinstance(self.last_name, Unset):
            last_name = UNSET
        else:
            last_name = self.last_name

        company: None | str | Unset
        if isinstance(self.company, Unset):
            company = UNSET
        else:
            company = self.company

        company_id: None | str | Unset
        if isinstance(self.company_id, Unset):
            company_id = UNSET
        else:
            company_id = self.company_id

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

        linked_conversation_id: None | str | Unset
        if isinstance(self.linked_conversation_id, Unset):
            linked_conversation_id = UNSET
        else:
            linked_conversation_id = self.linked_conversation_id

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags

        else:
            tags = self.tags

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop

        field_dict.update({})
        if email is not UNSET:
            field_dict["email"] = email
        if mobile is not UNSET:
            field_dict["mobile"] = mobile
        if whatsapp_phone is not UNSET:
            field_dict["whatsapp_phone"] = whatsapp_phone
        if phone is not UNSET:
            field_dict["phone"] = phone
        if firstName is not UNSET:
            field_dict["firstName"] = firstName
        if first_name is not UNSET:
            field_dict["first_name"] = first_name
        if lastName is not UNSET:
            field_dict["lastName"] = lastName
        if last_name is not UNSET:
            field_dict["last_name"] = last_name
        if company is not UNSET:
            field_dict["company"] = company
        if company_id is not UNSET:
            field_dict["companyId"] = company_id
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
        if linked_conversation_id is not UNSET:
            field_dict["linkedConversationId"] = linked_conversation_id
        if tags is not UNSET:
            field_dict["tags"] = tags

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email = _parse_email(d.pop("email", UNSET))

        def _parse_mobile(data: object) -> float | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | str | Unset, data)

        mobile = _parse_mobile(d.pop("mobile", UNSET))

        def _parse_whatsapp_phone(data: object) -> float | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | str | Unset, data)

        whatsapp_phone = _parse_whatsapp_phone(d.pop("whatsapp_phone", UNSET))

        def _parse_phone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        phone = _parse_phone(d.pop("phone", UNSET))

        def _parse_firstName(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        firstName = _parse_firstName(d.pop("firstName", UNSET))

        def _parse_first_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        first_name = _parse_first_name(d.pop("first_name", UNSET))

        def _parse_lastName(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        lastName = _parse_lastName(d.pop("lastName", UNSET))

        def _parse_last_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_name = _parse_last_name(d.pop("last_name", UNSET))

        def _parse_company(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        company = _parse_company(d.pop("company", UNSET))

        def _parse_company_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        company_id = _parse_company_id(d.pop("companyId", UNSET))

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

        def _parse_linked_conversation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        linked_conversation_id = _parse_linked_conversation_id(d.pop("linkedConversationId", UNSET))

        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        contact_input = cls(
            email=email,
            mobile=mobile,
            whatsapp_phone=whatsapp_phone,
            phone=phone,
            firstName=firstName,
            first_name=first_name,
            lastName=lastName,
            last_name=last_name,
            company=company,
            company_id=company_id,
            city=city,
            city_code=city_code,
            state=state,
            country=country,
            id_type=id_type,
            id_number=id_number,
            linked_conversation_id=linked_conversation_id,
            tags=tags,
        )

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> bool | float | None | str:
                if data is None:
                    return data
                return cast(bool | float | None | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        contact_input.additional_properties = additional_properties
        return contact_input

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
