from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.deal_input_stage import DealInputStage
from ..types import UNSET, Unset

T = TypeVar("T", bound="DealInput")


@_attrs_define
class DealInput:
    """
    Attributes:
        stage (DealInputStage | Unset):
        name (str | Unset):
        amount (float | None | Unset):
    """

    stage: DealInputStage | Unset = UNSET
    name: str | Unset = UNSET
    amount: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        stage: str | Unset = UNSET
        if not isinstance(self.stage, Unset):
            stage = self.stage.value

        name = self.name

        amount: float | None | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        else:
            amount = self.amount

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if stage is not UNSET:
            field_dict["stage"] = stage
        if name is not UNSET:
            field_dict["name"] = name
        if amount is not UNSET:
            field_dict["amount"] = amount

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _stage = d.pop("stage", UNSET)
        stage: DealInputStage | Unset
        if isinstance(_stage, Unset):
            stage = UNSET
        else:
            stage = DealInputStage(_stage)

        name = d.pop("name", UNSET)

        def _parse_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        deal_input = cls(
            stage=stage,
            name=name,
            amount=amount,
        )

        return deal_input
