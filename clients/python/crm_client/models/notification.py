from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Notification")


@_attrs_define
class Notification:
    """
    Attributes:
        id (str):
        type_ (str):
        recipient (None | str): The address a form's `notify` named; null: the whole team.
        read (bool):
        created_at (datetime.datetime):
        form_id (None | str | Unset):
        submission_id (None | str | Unset):
        contact_id (None | str | Unset):
        message (str | Unset): What happened, on a notification that is not a submission's
            (`webhook_endpoint_disabled`).
        url (str | Unset): The webhook endpoint a `webhook_endpoint_disabled` notification is about.
    """

    id: str
    type_: str
    recipient: None | str
    read: bool
    created_at: datetime.datetime
    form_id: None | str | Unset = UNSET
    submission_id: None | str | Unset = UNSET
    contact_id: None | str | Unset = UNSET
    message: str | Unset = UNSET
    url: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        recipient: None | str
        recipient = self.recipient

        read = self.read

        created_at = self.created_at.isoformat()

        form_id: None | str | Unset
        if isinstance(self.form_id, Unset):
            form_id = UNSET
        else:
            form_id = self.form_id

        submission_id: None | str | Unset
        if isinstance(self.submission_id, Unset):
            submission_id = UNSET
        else:
            submission_id = self.submission_id

        contact_id: None | str | Unset
        if isinstance(self.contact_id, Unset):
            contact_id = UNSET
        else:
            contact_id = self.contact_id

        message = self.message

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "recipient": recipient,
                "read": read,
                "createdAt": created_at,
            }
        )
        if form_id is not UNSET:
            field_dict["formId"] = form_id
        if submission_id is not UNSET:
            field_dict["submissionId"] = submission_id
        if contact_id is not UNSET:
            field_dict["contactId"] = contact_id
        if message is not UNSET:
            field_dict["message"] = message
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        def _parse_recipient(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        recipient = _parse_recipient(d.pop("recipient"))

        read = d.pop("read")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        def _parse_form_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form_id = _parse_form_id(d.pop("formId", UNSET))

        def _parse_submission_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        submission_id = _parse_submission_id(d.pop("submissionId", UNSET))

        def _parse_contact_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        contact_id = _parse_contact_id(d.pop("contactId", UNSET))

        message = d.pop("message", UNSET)

        url = d.pop("url", UNSET)

        notification = cls(
            id=id,
            type_=type_,
            recipient=recipient,
            read=read,
            created_at=created_at,
            form_id=form_id,
            submission_id=submission_id,
            contact_id=contact_id,
            message=message,
            url=url,
        )

        notification.additional_properties = d
        return notification

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
