from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.import_input_location_mode_type_1 import ImportInputLocationModeType1
from ..types import UNSET, Unset

T = TypeVar("T", bound="ImportInput")


@_attrs_define
class ImportInput:
    """
    Attributes:
        rows (list[Any]): At most 10,000 (more: 413 `IMPORT_TOO_LARGE`, nothing written).
        dry_run (bool | None | Unset):  Default: False.
        location_mode (ImportInputLocationModeType1 | None | Unset):  Default: ImportInputLocationModeType1.LENIENT.
    """

    rows: list[Any]
    dry_run: bool | None | Unset = False
    location_mode: ImportInputLocationModeType1 | None | Unset = ImportInputLocationModeType1.LENIENT
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        rows = self.rows

        dry_run: bool | None | Unset
        if isinstance(self.dry_run, Unset):
            dry_run = UNSET
        else:
            dry_run = self.dry_run

        location_mode: None | str | Unset
        if isinstance(self.location_mode, Unset):
            location_mode = UNSET
        elif isinstance(self.location_mode, ImportInputLocationModeType1):
            location_mode = self.location_mode.value
        else:
            location_mode = self.location_mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "rows": rows,
            }
        )
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run
        if location_mode is not UNSET:
            field_dict["locationMode"] = location_mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rows = cast(list[Any], d.pop("rows"))

        def _parse_dry_run(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        dry_run = _parse_dry_run(d.pop("dryRun", UNSET))

        def _parse_location_mode(data: object) -> ImportInputLocationModeType1 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                location_mode_type_1 = ImportInputLocationModeType1(data)

                return location_mode_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImportInputLocationModeType1 | None | Unset, data)

        location_mode = _parse_location_mode(d.pop("locationMode", UNSET))

        import_input = cls(
            rows=rows,
            dry_run=dry_run,
            location_mode=location_mode,
        )

        import_input.additional_properties = d
        return import_input

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
