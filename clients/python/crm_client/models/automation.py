from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.automation_status import AutomationStatus

if TYPE_CHECKING:
    from ..models.http_action import HttpAction
    from ..models.trigger import Trigger


T = TypeVar("T", bound="Automation")


@_attrs_define
class Automation:
    """
    Attributes:
        id (str):
        name (str):
        status (AutomationStatus):
        trigger (Trigger):
        actions (list[HttpAction]):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    id: str
    name: str
    status: AutomationStatus
    trigger: Trigger
    actions: list[HttpAction]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        status = self.status.value

        trigger = self.trigger.to_dict()

        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "status": status,
                "trigger": trigger,
                "actions": actions,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.http_action import HttpAction  # noqa: PLC0415
        from ..models.trigger import Trigger  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        status = AutomationStatus(d.pop("status"))

        trigger = Trigger.from_dict(d.pop("trigger"))

        actions = []
        _actions = d.pop("actions")
        for actions_item_data in _actions:
            actions_item = HttpAction.from_dict(actions_item_data)

            actions.append(actions_item)

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        automation = cls(
            id=id,
            name=name,
            status=status,
            trigger=trigger,
            actions=actions,
            created_at=created_at,
            updated_at=updated_at,
        )

        automation.additional_properties = d
        return automation

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
