from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..models.trigger_to_stage_type_1 import TriggerToStageType1
from ..types import UNSET, Unset

T = TypeVar("T", bound="Trigger")


@_attrs_define
class Trigger:
    """
    Attributes:
        type_ (EventType): An event type the host sends: the `type` of a delivery's body (`Event`), one of this
            document's `webhooks`.
        to_stage (None | TriggerToStageType1 | Unset): `deal.stage_changed` only: the stage entered (any when absent).
        form_id (None | str | Unset): `form.submitted` only: that form (any when absent).
    """

    type_: EventType
    to_stage: None | TriggerToStageType1 | Unset = UNSET
    form_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        to_stage: None | str | Unset
        if isinstance(self.to_stage, Unset):
            to_stage = UNSET
        elif isinstance(self.to_stage, TriggerToStageType1):
            to_stage = self.to_stage.value
        else:
            to_stage = self.to_stage

        form_id: None | str | Unset
        if isinstance(self.form_id, Unset):
            form_id = UNSET
        else:
            form_id = self.form_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )
        if to_stage is not UNSET:
            field_dict["toStage"] = to_stage
        if form_id is not UNSET:
            field_dict["formId"] = form_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = EventType(d.pop("type"))

        def _parse_to_stage(data: object) -> None | TriggerToStageType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                to_stage_type_1 = TriggerToStageType1(data)

                return to_stage_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TriggerToStageType1 | Unset, data)

        to_stage = _parse_to_stage(d.pop("toStage", UNSET))

        def _parse_form_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        form_id = _parse_form_id(d.pop("formId", UNSET))

        trigger = cls(
            type_=type_,
            to_stage=to_stage,
            form_id=form_id,
        )

        return trigger
