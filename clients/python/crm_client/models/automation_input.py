from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.automation_input_status_type_1 import AutomationInputStatusType1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.http_action import HttpAction
    from ..models.trigger import Trigger


T = TypeVar("T", bound="AutomationInput")


@_attrs_define
class AutomationInput:
    """
    Attributes:
        name (str):
        trigger (Trigger):
        actions (list[HttpAction]):
        status (AutomationInputStatusType1 | None | Unset): Any other value: 403 `AUTOMATION_DRAFT_ONLY`.
    """

    name: str
    trigger: Trigger
    actions: list[HttpAction]
    status: AutomationInputStatusType1 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        trigger = self.trigger.to_dict()

        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, AutomationInputStatusType1):
            status = self.status.value
        else:
            status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "trigger": trigger,
                "actions": actions,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.http_action import HttpAction  # noqa: PLC0415
        from ..models.trigger import Trigger  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        trigger = Trigger.from_dict(d.pop("trigger"))

        actions = []
        _actions = d.pop("actions")
        for actions_item_data in _actions:
            actions_item = HttpAction.from_dict(actions_item_data)

            actions.append(actions_item)

        def _parse_status(data: object) -> AutomationInputStatusType1 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_1 = AutomationInputStatusType1(data)

                return status_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AutomationInputStatusType1 | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        automation_input = cls(
            name=name,
            trigger=trigger,
            actions=actions,
            status=status,
        )

        return automation_input
