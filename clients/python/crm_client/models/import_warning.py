from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.city_candidate import CityCandidate


T = TypeVar("T", bound="ImportWarning_")


@_attrs_define
class ImportWarning_:
    """
    Attributes:
        row (int):
        code (str):
        message (str):
        input_ (str | Unset):
        status (str | Unset):
        candidates (list[CityCandidate] | Unset):
    """

    row: int
    code: str
    message: str
    input_: str | Unset = UNSET
    status: str | Unset = UNSET
    candidates: list[CityCandidate] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        row = self.row

        code = self.code

        message = self.message

        input_ = self.input_

        status = self.status

        candidates: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.candidates, Unset):
            candidates = []
            for candidates_item_data in self.candidates:
                candidates_item = candidates_item_data.to_dict()
                candidates.append(candidates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "row": row,
                "code": code,
                "message": message,
            }
        )
        if input_ is not UNSET:
            field_dict["input"] = input_
        if status is not UNSET:
            field_dict["status"] = status
        if candidates is not UNSET:
            field_dict["candidates"] = candidates

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.city_candidate import CityCandidate  # noqa: PLC0415

        d = dict(src_dict)
        row = d.pop("row")

        code = d.pop("code")

        message = d.pop("message")

        input_ = d.pop("input", UNSET)

        status = d.pop("status", UNSET)

        _candidates = d.pop("candidates", UNSET)
        candidates: list[CityCandidate] | Unset = UNSET
        if _candidates is not UNSET:
            candidates = []
            for candidates_item_data in _candidates:
                candidates_item = CityCandidate.from_dict(candidates_item_data)

                candidates.append(candidates_item)

        import_warning = cls(
            row=row,
            code=code,
            message=message,
            input_=input_,
            status=status,
            candidates=candidates,
        )

        import_warning.additional_properties = d
        return import_warning

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
