from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.resolution_status import ResolutionStatus

if TYPE_CHECKING:
    from ..models.municipality import Municipality
    from ..models.resolution_data_type_2 import ResolutionDataType2


T = TypeVar("T", bound="Resolution")


@_attrs_define
class Resolution:
    """
    Attributes:
        success (Literal[True]):
        status (ResolutionStatus):
        data (Municipality | None | ResolutionDataType2):
        candidates (list[Municipality]):
    """

    success: Literal[True]
    status: ResolutionStatus
    data: Municipality | None | ResolutionDataType2
    candidates: list[Municipality]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.municipality import Municipality  # noqa: PLC0415
        from ..models.resolution_data_type_2 import ResolutionDataType2  # noqa: PLC0415

        success = self.success

        status = self.status.value

        data: dict[str, Any] | None
        if isinstance(self.data, Municipality):
            data = self.data.to_dict()
        elif isinstance(self.data, ResolutionDataType2):
            data = self.data.to_dict()
        else:
            data = self.data

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "status": status,
                "data": data,
                "candidates": candidates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.municipality import Municipality  # noqa: PLC0415
        from ..models.resolution_data_type_2 import ResolutionDataType2  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        status = ResolutionStatus(d.pop("status"))

        def _parse_data(data: object) -> Municipality | None | ResolutionDataType2:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_1 = Municipality.from_dict(data)

                return data_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_2 = ResolutionDataType2.from_dict(data)

                return data_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Municipality | None | ResolutionDataType2, data)

        data = _parse_data(d.pop("data"))

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = Municipality.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        resolution = cls(
            success=success,
            status=status,
            data=data,
            candidates=candidates,
        )

        resolution.additional_properties = d
        return resolution

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
