from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.pipeline_kind import PipelineKind

if TYPE_CHECKING:
    from ..models.pipeline_stages_item import PipelineStagesItem


T = TypeVar("T", bound="Pipeline")


@_attrs_define
class Pipeline:
    """
    Attributes:
        id (str):
        kind (PipelineKind):
        name (str):
        stages (list[PipelineStagesItem]):
        is_default (bool):
        created_at (datetime.datetime | None):
    """

    id: str
    kind: PipelineKind
    name: str
    stages: list[PipelineStagesItem]
    is_default: bool
    created_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind.value

        name = self.name

        stages = []
        for stages_item_data in self.stages:
            stages_item = stages_item_data.to_dict()
            stages.append(stages_item)

        is_default = self.is_default

        created_at: None | str
        if isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "name": name,
                "stages": stages,
                "isDefault": is_default,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pipeline_stages_item import PipelineStagesItem  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        kind = PipelineKind(d.pop("kind"))

        name = d.pop("name")

        stages = []
        _stages = d.pop("stages")
        for stages_item_data in _stages:
            stages_item = PipelineStagesItem.from_dict(stages_item_data)

            stages.append(stages_item)

        is_default = d.pop("isDefault")

        def _parse_created_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        created_at = _parse_created_at(d.pop("createdAt"))

        pipeline = cls(
            id=id,
            kind=kind,
            name=name,
            stages=stages,
            is_default=is_default,
            created_at=created_at,
        )

        pipeline.additional_properties = d
        return pipeline

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
