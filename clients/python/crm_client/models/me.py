from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.me_organization import MeOrganization
    from ..models.me_plan_type_1 import MePlanType1
    from ..models.me_token import MeToken
    from ..models.me_user_type_1 import MeUserType1


T = TypeVar("T", bound="Me")


@_attrs_define
class Me:
    """
    Attributes:
        organization (MeOrganization):
        user (MeUserType1 | None):
        token (MeToken):
        plan (MePlanType1 | None):
    """

    organization: MeOrganization
    user: MeUserType1 | None
    token: MeToken
    plan: MePlanType1 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.me_plan_type_1 import MePlanType1  # noqa: PLC0415
        from ..models.me_user_type_1 import MeUserType1  # noqa: PLC0415

        organization = self.organization.to_dict()

        user: dict[str, Any] | None
        if isinstance(self.user, MeUserType1):
            user = self.user.to_dict()
        else:
            user = self.user

        token = self.token.to_dict()

        plan: dict[str, Any] | None
        if isinstance(self.plan, MePlanType1):
            plan = self.plan.to_dict()
        else:
            plan = self.plan

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "organization": organization,
                "user": user,
                "token": token,
                "plan": plan,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.me_organization import MeOrganization  # noqa: PLC0415
        from ..models.me_plan_type_1 import MePlanType1  # noqa: PLC0415
        from ..models.me_token import MeToken  # noqa: PLC0415
        from ..models.me_user_type_1 import MeUserType1  # noqa: PLC0415

        d = dict(src_dict)
        organization = MeOrganization.from_dict(d.pop("organization"))

        def _parse_user(data: object) -> MeUserType1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                user_type_1 = MeUserType1.from_dict(data)

                return user_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MeUserType1 | None, data)

        user = _parse_user(d.pop("user"))

        token = MeToken.from_dict(d.pop("token"))

        def _parse_plan(data: object) -> MePlanType1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                plan_type_1 = MePlanType1.from_dict(data)

                return plan_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MePlanType1 | None, data)

        plan = _parse_plan(d.pop("plan"))

        me = cls(
            organization=organization,
            user=user,
            token=token,
            plan=plan,
        )

        me.additional_properties = d
        return me

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
