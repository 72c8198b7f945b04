from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ConversationStage")


@_attrs_define
class ConversationStage:
    """
    Attributes:
        conversation_id (str):
        pipeline_id (str):
        stage_id (str):
        stage_name (str):
        entered_at (datetime.datetime):
    """

    conversation_id: str
    pipeline_id: str
    stage_id: str
    stage_name: str
    entered_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        pipeline_id = self.pipeline_id

        stage_id = self.stage_id

        stage_name = self.stage_name

        entered_at = self.entered_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversationId": conversation_id,
                "pipelineId": pipeline_id,
                "stageId": stage_id,
                "stageName": stage_name,
                "enteredAt": entered_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversationId")

        pipeline_id = d.pop("pipelineId")

        stage_id = d.pop("stageId")

        stage_name = d.pop("stageName")

        entered_at = datetime.datetime.fromisoformat(d.pop("enteredAt"))

        conversation_stage = cls(
            conversation_id=conversation_id,
            pipeline_id=pipeline_id,
            stage_id=stage_id,
            stage_name=stage_name,
            entered_at=entered_at,
        )

        conversation_stage.additional_properties = d
        return conversation_stage

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
