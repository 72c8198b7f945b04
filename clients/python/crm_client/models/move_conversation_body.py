from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="MoveConversationBody")


@_attrs_define
class MoveConversationBody:
    """
    Attributes:
        pipeline_id (str):
        stage_id (str):
    """

    pipeline_id: str
    stage_id: str

    def to_dict(self) -> dict[str, Any]:
        pipeline_id = self.pipeline_id

        stage_id = self.stage_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "pipelineId": pipeline_id,
                "stageId": stage_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        pipeline_id = d.pop("pipelineId")

        stage_id = d.pop("stageId")

        move_conversation_body = cls(
            pipeline_id=pipeline_id,
            stage_id=stage_id,
        )

        return move_conversation_body
