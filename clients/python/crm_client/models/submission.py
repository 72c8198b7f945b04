from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.submission_status import SubmissionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attribution_type_1 import AttributionType1
    from ..models.submission_fields import SubmissionFields


T = TypeVar("T", bound="Submission")


@_attrs_define
class Submission:
    """
    Attributes:
        id (str):
        form_id (str):
        status (SubmissionStatus):
        fields (SubmissionFields):
        created_at (datetime.datetime):
        attribution (AttributionType1 | None | Unset):
        contact_id (None | str | Unset):
        deal_id (None | str | Unset):
        reason (Any | Unset):
    """

    id: str
    form_id: str
    status: SubmissionStatus
    fields: SubmissionFields
    created_at: datetime.datetime
    attribution: AttributionType1 | None | Unset = UNSET
    contact_id: None | str | Unset = UNSET
    deal_id: None | str | Unset = UNSET
    reason: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.attribution_type_1 import AttributionType1  # noqa: PLC0415

        id = self.id

        form_id = self.form_id

        status = self.status.value

        fields = self.fields.to_dict()

        created_at = self.created_at.isoformat()

        attribution: dict[str, Any] | None | Unset
        if isinstance(self.attribution, Unset):
            attribution = UNSET
        elif isinstance(self.attribution, AttributionType1):
            attribution = self.attribution.to_dict()
        else:
            attribution = self.attribution

        contact_id: None | str | Unset
        if isinstance(self.contact_id, Unset):
            contact_id = UNSET
        else:
            contact_id = self.contact_id

        deal_id: None | str | Unset
        if isinstance(self.deal_id, Unset):
            deal_id = UNSET
        else:
            deal_id = self.deal_id

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "formId": form_id,
                "status": status,
                "fields": fields,
                "createdAt": created_at,
            }
        )
        if attribution is not UNSET:
            field_dict["attribution"] = attribution
        if contact_id is not UNSET:
            field_dict["contactId"] = contact_id
        if deal_id is not UNSET:
            field_dict["dealId"] = deal_id
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attribution_type_1 import AttributionType1  # noqa: PLC0415
        from ..models.submission_fields import SubmissionFields  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        form_id = d.pop("formId")

        status = SubmissionStatus(d.pop("status"))

        fields = SubmissionFields.from_dict(d.pop("fields"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        def _parse_attribution(data: object) -> AttributionType1 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_attribution_type_1 = AttributionType1.from_dict(data)

                return componentsschemas_attribution_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AttributionType1 | None | Unset, data)

        attribution = _parse_attribution(d.pop("attribution", UNSET))

        def _parse_contact_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        contact_id = _parse_contact_id(d.pop("contactId", UNSET))

        def _parse_deal_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal_id = _parse_deal_id(d.pop("dealId", UNSET))

        reason = d.pop("reason", UNSET)

        submission = cls(
            id=id,
            form_id=form_id,
            status=status,
            fields=fields,
            created_at=created_at,
            attribution=attribution,
            contact_id=contact_id,
            deal_id=deal_id,
            reason=reason,
        )

        submission.additional_properties = d
        return submission

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
