from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.contact_document_properties_item import ContactDocumentPropertiesItem


T = TypeVar("T", bound="ContactDocument")


@_attrs_define
class ContactDocument:
    """The unflattened contact of the 200 upsert answer.

    Attributes:
        field_id (str):
        organization_id (str):
        properties (list[ContactDocumentPropertiesItem]):
        lead_score (float):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    field_id: str
    organization_id: str
    properties: list[ContactDocumentPropertiesItem]
    lead_score: float
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field_id = self.field_id

        organization_id = self.organization_id

        properties = []
        for properties_item_data in self.properties:
            properties_item = properties_item_data.to_dict()
            properties.append(properties_item)

        lead_score = self.lead_score

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "_id": field_id,
                "organizationId": organization_id,
                "properties": properties,
                "leadScore": lead_score,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contact_document_properties_item import ContactDocumentPropertiesItem  # noqa: PLC0415

        d = dict(src_dict)
        field_id = d.pop("_id")

        organization_id = d.pop("organizationId")

        properties = []
        _properties = d.pop("properties")
        for properties_item_data in _properties:
            properties_item = ContactDocumentPropertiesItem.from_dict(properties_item_data)

            properties.append(properties_item)

        lead_score = d.pop("leadScore")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        contact_document = cls(
            field_id=field_id,
            organization_id=organization_id,
            properties=properties,
            lead_score=lead_score,
            created_at=created_at,
            updated_at=updated_at,
        )

        contact_document.additional_properties = d
        return contact_document

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
