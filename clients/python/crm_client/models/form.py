from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Form")


@_attrs_define
class Form:
    """
    Attributes:
        id (str):
        name (str):
        public_key (str):
        create_deal (bool):
        notify (list[str]):
        allowed_origins (list[str]):
        redirect_url (None | str):
        created_at (datetime.datetime | Unset):
        updated_at (datetime.datetime | Unset):
    """

    id: str
    name: str
    public_key: str
    create_deal: bool
    notify: list[str]
    allowed_origins: list[str]
    redirect_url: None | str
    created_at: datetime.datetime | Unset = UNSET
    updated_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        public_key = self.public_key

        create_deal = self.create_deal

        notify = self.notify

        allowed_origins = self.allowed_origins

        redirect_url: None | str
        redirect_url = self.redirect_url

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "publicKey": public_key,
                "createDeal": create_deal,
                "notify": notify,
                "allowedOrigins": allowed_origins,
                "redirectUrl": redirect_url,
            }
        )
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        public_key = d.pop("publicKey")

        create_deal = d.pop("createDeal")

        notify = cast(list[str], d.pop("notify"))

        allowed_origins = cast(list[str], d.pop("allowedOrigins"))

        def _parse_redirect_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        redirect_url = _parse_redirect_url(d.pop("redirectUrl"))

        _created_at = d.pop("createdAt", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

        _updated_at = d.pop("updatedAt", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        form = cls(
            id=id,
            name=name,
            public_key=public_key,
            create_deal=create_deal,
            notify=notify,
            allowed_origins=allowed_origins,
            redirect_url=redirect_url,
            created_at=created_at,
            updated_at=updated_at,
        )

        form.additional_properties = d
        return form

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
