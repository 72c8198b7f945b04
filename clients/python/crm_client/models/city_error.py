from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.city_error_code import CityErrorCode
from ..models.city_error_error import CityErrorError
from ..models.city_error_status import CityErrorStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.city_candidate import CityCandidate


T = TypeVar("T", bound="CityError")


@_attrs_define
class CityError:
    """A city the catalog cannot resolve without doubt. Resend with a `cityCode` from `candidates`.

    Attributes:
        success (Literal[False]):
        message (str):
        code (CityErrorCode):
        error (CityErrorError):
        status (CityErrorStatus):
        candidates (list[CityCandidate]):
        input_ (str | Unset):
    """

    success: Literal[False]
    message: str
    code: CityErrorCode
    error: CityErrorError
    status: CityErrorStatus
    candidates: list[CityCandidate]
    input_: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message

        code = self.code.value

        error = self.error.value

        status = self.status.value

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        input_ = self.input_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "message": message,
                "code": code,
                "error": error,
                "status": status,
                "candidates": candidates,
            }
        )
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.city_candidate import CityCandidate  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[False], d.pop("success"))
        if success != False:
            raise ValueError(f"success must match const False, got '{success}'")

        message = d.pop("message")

        code = CityErrorCode(d.pop("code"))

        error = CityErrorError(d.pop("error"))

        status = CityErrorStatus(d.pop("status"))

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = CityCandidate.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        input_ = d.pop("input", UNSET)

        city_error = cls(
            success=success,
            message=message,
            code=code,
            error=error,
            status=status,
            candidates=candidates,
            input_=input_,
        )

        city_error.additional_properties = d
        return city_error

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
