from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_contact_type_1 import ConversationContactType1


T = TypeVar("T", bound="Conversation")


@_attrs_define
class Conversation:
    """
    Attributes:
        id (str):
        channel (None | str):
        name (None | str):
        phone (None | str):
        contact_id (None | str):
        created_at (datetime.datetime):
        contact (ConversationContactType1 | None | Unset):
        updated_at (datetime.datetime | Unset):
    """

    id: str
    channel: None | str
    name: None | str
    phone: None | str
    contact_id: None | str
    created_at: datetime.datetime
    contact: ConversationContactType1 | None | Unset = UNSET
    updated_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.conversation_contact_type_1 import ConversationContactType1  # noqa: PLC0415

        id = self.id

        channel: None | str
        channel = self.channel

        name: None | str
        name = self.name

        phone: None | str
        phone = self.phone

        contact_id: None | str
        contact_id = self.contact_id

        created_at = self.created_at.isoformat()

        contact: dict[str, Any] | None | Unset
        if isinstance(self.contact, Unset):
            contact = UNSET
        elif isinstance(self.contact, ConversationContactType1):
            contact = self.contact.to_dict()
        else:
            contact = self.contact

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "channel": channel,
                "name": name,
                "phone": phone,
                "contactId": contact_id,
                "createdAt": created_at,
            }
        )
        if contact is not UNSET:
            field_dict["contact"] = contact
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation_contact_type_1 import ConversationContactType1  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_channel(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        channel = _parse_channel(d.pop("channel"))

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        def _parse_phone(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        phone = _parse_phone(d.pop("phone"))

        def _parse_contact_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        contact_id = _parse_contact_id(d.pop("contactId"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        def _parse_contact(data: object) -> ConversationContactType1 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                contact_type_1 = ConversationContactType1.from_dict(data)

                return contact_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConversationContactType1 | None | Unset, data)

        contact = _parse_contact(d.pop("contact", UNSET))

        _updated_at = d.pop("updatedAt", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        conversation = cls(
            id=id,
            channel=channel,
            name=name,
            phone=phone,
            contact_id=contact_id,
            created_at=created_at,
            contact=contact,
            updated_at=updated_at,
        )

        conversation.additional_properties = d
        return conversation

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
