from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.shipment_city_error_reason import ShipmentCityErrorReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.shipment_city_error_candidates_item import ShipmentCityErrorCandidatesItem
    from ..models.shipment_city_error_input import ShipmentCityErrorInput


T = TypeVar("T", bound="ShipmentCityError")


@_attrs_define
class ShipmentCityError:
    """
    Attributes:
        success (Literal[False]):
        message (str):
        code (Literal['INVALID_CITY']):
        reason (ShipmentCityErrorReason):
        input_ (ShipmentCityErrorInput):
        candidates (list[ShipmentCityErrorCandidatesItem]):
        error (Literal['INVALID_CITY'] | Unset):
    """

    success: Literal[False]
    message: str
    code: Literal["INVALID_CITY"]
    reason: ShipmentCityErrorReason
    input_: ShipmentCityErrorInput
    candidates: list[ShipmentCityErrorCandidatesItem]
    error: Literal["INVALID_CITY"] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message

        code = self.code

        reason = self.reason.value

        input_ = self.input_.to_dict()

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "message": message,
                "code": code,
                "reason": reason,
                "input": input_,
                "candidates": candidates,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.shipment_city_error_candidates_item import ShipmentCityErrorCandidatesItem  # noqa: PLC0415
        from ..models.shipment_city_error_input import ShipmentCityErrorInput  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[False], d.pop("success"))
        if success != False:
            raise ValueError(f"success must match const False, got '{success}'")

        message = d.pop("message")

        code = cast(Literal["INVALID_CITY"], d.pop("code"))
        if code != "INVALID_CITY":
            raise ValueError(f"code must match const 'INVALID_CITY', got '{code}'")

        reason = ShipmentCityErrorReason(d.pop("reason"))

        input_ = ShipmentCityErrorInput.from_dict(d.pop("input"))

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = ShipmentCityErrorCandidatesItem.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        error = cast(Literal["INVALID_CITY"] | Unset, d.pop("error", UNSET))
        if error != "INVALID_CITY" and not isinstance(error, Unset):
            raise ValueError(f"error must match const 'INVALID_CITY', got '{error}'")

        shipment_city_error = cls(
            success=success,
            message=message,
            code=code,
            reason=reason,
            input_=input_,
            candidates=candidates,
            error=error,
        )

        shipment_city_error.additional_properties = d
        return shipment_city_error

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
