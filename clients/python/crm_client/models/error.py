from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_details_type_1 import ErrorDetailsType1
    from ..models.error_error_type_1 import ErrorErrorType1


T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """Every refusal. `code` names it; contact errors of the spec that carry only a text have `error` instead. 403
    permission refusals add `requiredPermission` and `availablePermissions`; plan refusals add `module`.

        Attributes:
            success (Literal[False]):
            message (str):
            code (str | Unset):
            error (ErrorErrorType1 | str | Unset): Contact errors repeat `code` here (a plain contact error has only this
                text); provider failures put the normalized `{code, message}` here.
            details (ErrorDetailsType1 | str | Unset):
            required_permission (str | Unset):
            available_permissions (list[str] | Unset):
            module (str | Unset):
            field (str | Unset):
            limit (Any | Unset):
    """

    success: Literal[False]
    message: str
    code: str | Unset = UNSET
    error: ErrorErrorType1 | str | Unset = UNSET
    details: ErrorDetailsType1 | str | Unset = UNSET
    required_permission: str | Unset = UNSET
    available_permissions: list[str] | Unset = UNSET
    module: str | Unset = UNSET
    field: str | Unset = UNSET
    limit: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_details_type_1 import ErrorDetailsType1  # noqa: PLC0415
        from ..models.error_error_type_1 import ErrorErrorType1  # noqa: PLC0415

        success = self.success

        message = self.message

        code = self.code

        error: dict[str, Any] | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorErrorType1):
            error = self.error.to_dict()
        else:
            error = self.error

        details: dict[str, Any] | str | Unset
        if isinstance(self.details, Unset):
            details = UNSET
        elif isinstance(self.details, ErrorDetailsType1):
            details = self.details.to_dict()
        else:
            details = self.details

        required_permission = self.required_permission

        available_permissions: list[str] | Unset = UNSET
        if not isinstance(self.available_permissions, Unset):
            available_permissions = self.available_permissions

        module = self.module

        field = self.field

        limit = self.limit

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "message": message,
            }
        )
        if code is not UNSET:
            field_dict["code"] = code
        if error is not UNSET:
            field_dict["error"] = error
        if details is not UNSET:
            field_dict["details"] = details
        if required_permission is not UNSET:
            field_dict["requiredPermission"] = required_permission
        if available_permissions is not UNSET:
            field_dict["availablePermissions"] = available_permissions
        if module is not UNSET:
            field_dict["module"] = module
        if field is not UNSET:
            field_dict["field"] = field
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_details_type_1 import ErrorDetailsType1  # noqa: PLC0415
        from ..models.error_error_type_1 import ErrorErrorType1  # noqa: PLC0415

        d = dict(src_dict)
        success = cast(Literal[False], d.pop("success"))
        if success != False:
            raise ValueError(f"success must match const False, got '{success}'")

        message = d.pop("message")

        code = d.pop("code", UNSET)

        def _parse_error(data: object) -> ErrorErrorType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = ErrorErrorType1.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorErrorType1 | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_details(data: object) -> ErrorDetailsType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                details_type_1 = ErrorDetailsType1.from_dict(data)

                return details_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetailsType1 | str | Unset, data)

        details = _parse_details(d.pop("details", UNSET))

        required_permission = d.pop("requiredPermission", UNSET)

        available_permissions = cast(list[str], d.pop("availablePermissions", UNSET))

        module = d.pop("module", UNSET)

        field = d.pop("field", UNSET)

        limit = d.pop("limit", UNSET)

        error = cls(
            success=success,
            message=message,
            code=code,
            error=error,
            details=details,
            required_permission=required_permission,
            available_permissions=available_permissions,
            module=module,
            field=field,
            limit=limit,
        )

        error.additional_properties = d
        return error

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
