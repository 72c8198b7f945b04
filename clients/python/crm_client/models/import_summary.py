from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.import_summary_location_mode import ImportSummaryLocationMode
from ..models.import_summary_source import ImportSummarySource
from ..types import UNSET, Unset

T = TypeVar("T", bound="ImportSummary")


@_attrs_define
class ImportSummary:
    """
    Attributes:
        id (str):
        dry_run (bool):
        location_mode (ImportSummaryLocationMode):
        total (int):
        created (int):
        updated (int):
        rejected (int):
        created_at (datetime.datetime):
        source (ImportSummarySource | Unset):
        warning_count (int | Unset):
    """

    id: str
    dry_run: bool
    location_mode: ImportSummaryLocationMode
    total: int
    created: int
    updated: int
    rejected: int
    created_at: datetime.datetime
    source: ImportSummarySource | Unset = UNSET
    warning_count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        dry_run = self.dry_run

        location_mode = self.location_mode.value

        total = self.total

        created = self.created

        updated = self.updated

        rejected = self.rejected

        created_at = self.created_at.isoformat()

        source: str | Unset = UNSET
        if not isinstance(self.source, Unset):
            source = self.source.value

        warning_count = self.warning_count

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
                "createdAt": created_at,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if warning_count is not UNSET:
            field_dict["warningCount"] = warning_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        dry_run = d.pop("dryRun")

        location_mode = ImportSummaryLocationMode(d.pop("locationMode"))

        total = d.pop("total")

        created = d.pop("created")

        updated = d.pop("updated")

        rejected = d.pop("rejected")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        _source = d.pop("source", UNSET)
        source: ImportSummarySource | Unset
        if isinstance(_source, Unset):
            source = UNSET
        else:
            source = ImportSummarySource(_source)

        warning_count = d.pop("warningCount", UNSET)

        import_summary = cls(
            id=id,
            dry_run=dry_run,
            location_mode=location_mode,
            total=total,
            created=created,
            updated=updated,
            rejected=rejected,
            created_at=created_at,
            source=source,
            warning_count=warning_count,
        )

        import_summary.additional_properties = d
        return import_summary

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
