from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Deal")


@_attrs_define
class Deal:
    """
    Attributes:
        id (str):
        name (str):
        contact_id (None | str):
        stage (str):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        form_id (None | str | Unset):
        pipeline_id (None | str | Unset):
        amount (float | None | Unset):
    """

    id: str
    name: str
    contact_id: None | str
    stage: str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    form_id: None | str | Unset = UNSET
    pipeline_id: None | str | Unset = UNSET
    amount: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        contact_id: None | str
        contact_id = self.contact_id

        stage = self.stage

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        form_id: None | str | Unset
        if isinstance(self.form_id, Unset):
            form_id = UNSET
        else:
            form_id = self.form_id

        pipeline_id: None | str | Unset
        if isinstance(self.pipeline_id, Unset):
            pipeline_id = UNSET
        else:
            pipeline_id = self.pipeline_id

        amount: float | None | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        else:
            amount = self.amount

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "contactId": contact_id,
                "stage": stage,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )
        if form_id is not UNSET:
            field_dict["formId"] = form_id
        if pipeline_id is not UNSET:
            field_dict["pipelineId"] = pipeline_id
        if amount is not UNSET:
            field_dict["amount"] = amount

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        def _parse_contact_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        contact_id = _parse_contact_id(d.pop("contactId"))

        stage = d.pop("stage")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        def _parse_form_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form_id = _parse_form_id(d.pop("formId", UNSET))

        def _parse_pipeline_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        pipeline_id = _parse_pipeline_id(d.pop("pipelineId", UNSET))

        def _parse_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        deal = cls(
            id=id,
            name=name,
            contact_id=contact_id,
            stage=stage,
            created_at=created_at,
            updated_at=updated_at,
            form_id=form_id,
            pipeline_id=pipeline_id,
            amount=amount,
        )

        deal.additional_properties = d
        return deal

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
