from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.rejected_row_reason import RejectedRowReason


T = TypeVar("T", bound="RejectedRow")


@_attrs_define
class RejectedRow:
    """
    Attributes:
        row (int):
        reason (RejectedRowReason):
    """

    row: int
    reason: RejectedRowReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        row = self.row

        reason = self.reason.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "row": row,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rejected_row_reason import RejectedRowReason  # noqa: PLC0415

        d = dict(src_dict)
        row = d.pop("row")

        reason = RejectedRowReason.from_dict(d.pop("reason"))

        rejected_row = cls(
            row=row,
            reason=reason,
        )

        rejected_row.additional_properties = d
        return rejected_row

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
