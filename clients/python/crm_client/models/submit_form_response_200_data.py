from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SubmitFormResponse200Data")


@_attrs_define
class SubmitFormResponse200Data:
    """
    Attributes:
        submission_id (str):
        contact_id (str):
        deal_id (None | str):
    """

    submission_id: str
    contact_id: str
    deal_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        submission_id = self.submission_id

        contact_id = self.contact_id

        deal_id: None | str
        deal_id = self.deal_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "submissionId": submission_id,
                "contactId": contact_id,
                "dealId": deal_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        submission_id = d.pop("submissionId")

        contact_id = d.pop("contactId")

        def _parse_deal_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        deal_id = _parse_deal_id(d.pop("dealId"))

        submit_form_response_200_data = cls(
            submission_id=submission_id,
            contact_id=contact_id,
            deal_id=deal_id,
        )

        submit_form_response_200_data.additional_properties = d
        return submit_form_response_200_data

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
