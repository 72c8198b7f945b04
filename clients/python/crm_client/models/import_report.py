from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.import_report_location_mode import ImportReportLocationMode
from ..models.import_report_source import ImportReportSource
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.import_warning import ImportWarning_
    from ..models.rejected_row import RejectedRow


T = TypeVar("T", bound="ImportReport")


@_attrs_define
class ImportReport:
    """
    Attributes:
        id (str):
        dry_run (bool):
        location_mode (ImportReportLocationMode):
        total (int):
        created (int):
        updated (int):
        rejected (int):
        warnings (list[ImportWarning_]):
        rejected_rows (list[RejectedRow]):
        source (ImportReportSource | Unset):
        created_at (datetime.datetime | Unset):
    """

    id: str
    dry_run: bool
    location_mode: ImportReportLocationMode
    total: int
    created: int
    updated: int
    rejected: int
    warnings: list[ImportWarning_]
    rejected_rows: list[RejectedRow]
    source: ImportReportSource | Unset = UNSET
    created_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        dry_run = self.dry_run

        location_mode = self.location_mode.value

        total = self.total

        created = self.created

        updated = self.updated

        rejected = self.rejected

        warnings = []
        for warnings_item_data in self.warnings:
            warnings_item = warnings_item_data.to_dict()
            warnings.append(warnings_item)

        rejected_rows = []
        for rejected_rows_item_data in self.rejected_rows:
            rejected_rows_item = rejected_rows_item_data.to_dict()
            rejected_rows.append(rejected_rows_item)

        source: str | Unset = UNSET
        if not isinstance(self.source, Unset):
            source = self.source.value

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "dryRun": dry_run,
                "locationMode": location_mode,
                "total": total,
                "created": created,
                "updated": updated,
                "rejected": rejected,
                "warnings": warnings,
                "rejectedRows": rejected_rows,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.import_warning import ImportWarning_  # noqa: PLC0415
        from ..models.rejected_row import RejectedRow  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        dry_run = d.pop("dryRun")

        location_mode = ImportReportLocationMode(d.pop("locationMode"))

        total = d.pop("total")

        created = d.pop("created")

        updated = d.pop("updated")

        rejected = d.pop("rejected")

        warnings = []
        _warnings = d.pop("warnings")
        for warnings_item_data in _warnings:
            warnings_item = ImportWarning_.from_dict(warnings_item_data)

            warnings.append(warnings_item)

        rejected_rows = []
        _rejected_rows = d.pop("rejectedRows")
        for rejected_rows_item_data in _rejected_rows:
            rejected_rows_item = RejectedRow.from_dict(rejected_rows_item_data)

            rejected_rows.append(rejected_rows_item)

        _source = d.pop("source", UNSET)
        source: ImportReportSource | Unset
        if isinstance(_source, Unset):
            source = UNSET
        else:
            source = ImportReportSource(_source)

        _created_at = d.pop("createdAt", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

        import_report = cls(
            id=id,
            dry_run=dry_run,
            location_mode=location_mode,
            total=total,
            created=created,
            updated=updated,
            rejected=rejected,
            warnings=warnings,
            rejected_rows=rejected_rows,
            source=source,
            created_at=created_at,
        )

        import_report.additional_properties = d
        return import_report

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
