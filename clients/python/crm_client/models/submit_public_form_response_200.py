from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.submit_public_form_response_200_data import SubmitPublicFormResponse200Data


T = TypeVar("T", bound="SubmitPublicFormResponse200")


@_attrs_define
class SubmitPublicFormResponse200:
    """
    Attributes:
        success (Literal[True]):
        data (SubmitPublicFormResponse200Data):
        message (str | Unset):
    """

    success: Literal[True]
    data: SubmitPublicFormResponse200Data
    message: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = self.data.to_dict()

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "data": data,
            }
        )
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.submit_public_form_response_200_data import SubmitPublicFormResponse200Data  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = SubmitPublicFormResponse200Data.from_dict(d.pop("data"))

        message = d.pop("message", UNSET)

        submit_public_form_response_200 = cls(
            success=success,
            data=data,
            message=message,
        )

        submit_public_form_response_200.additional_properties = d
        return submit_public_form_response_200

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
