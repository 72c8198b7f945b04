from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.city_error import CityError
from ...models.contact_input import ContactInput
from ...models.error import Error
from ...models.upsert_contact_response_200 import UpsertContactResponse200
from ...models.upsert_contact_response_201 import UpsertContactResponse201
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ContactInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_organization_id, Unset):
        headers["X-Organization-Id"] = x_organization_id

    params: dict[str, Any] = {}

    params["organizationId"] = organization_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/contacts",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201 | None:
    if response.status_code == 200:
        response_200 = UpsertContactResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = UpsertContactResponse201.from_dict(response.json())

        return response_201

    if response.status_code == 400:

        def _parse_response_400(data: object) -> CityError | Error:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_400_type_0 = Error.from_dict(data)

                return response_400_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_400_type_1 = CityError.from_dict(data)

            return response_400_type_1

        response_400 = _parse_response_400(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = Error.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Error.from_dict(response.json())

        return response_415

    if response.status_code == 422:

        def _parse_response_422(data: object) -> CityError | Error:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_422_type_0 = CityError.from_dict(data)

                return response_422_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_422_type_1 = Error.from_dict(data)

            return response_422_type_1

        response_422 = _parse_response_422(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ContactInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201]:
    """Create or update a contact (upsert)

     Permission: `contacts:write`.

    Lookup by exact email, then by mobile digits (a Colombian number with or without `57`/`0057` in
    front is one number). The plan's contact limit is checked first (403 `PLAN_LIMIT_REACHED`). Nothing
    is written on any refusal. An update that changes nothing writes nothing: `updatedAt` stays the time
    of the last change.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (ContactInput): At least one of `email`, `mobile`/`whatsapp_phone` or
            `linkedConversationId` (POST). Location: a valid `cityCode`, or a `city` that resolves
            without doubt (`state` as a hint). Other keys of letters, digits, `_`, `.`, `-` are custom
            properties (text, number or boolean); server-owned keys (`id`, `stateCode`, `leadScore`,
            `createdAt`, ...) are ignored; `null` is the same as an absent field (and removes a custom
            property). Limits: docs/integrators.md, Limits.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201]
    """

    kwargs = _get_kwargs(
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ContactInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201 | None:
    """Create or update a contact (upsert)

     Permission: `contacts:write`.

    Lookup by exact email, then by mobile digits (a Colombian number with or without `57`/`0057` in
    front is one number). The plan's contact limit is checked first (403 `PLAN_LIMIT_REACHED`). Nothing
    is written on any refusal. An update that changes nothing writes nothing: `updatedAt` stays the time
    of the last change.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (ContactInput): At least one of `email`, `mobile`/`whatsapp_phone` or
            `linkedConversationId` (POST). Location: a valid `cityCode`, or a `city` that resolves
            without doubt (`state` as a hint). Other keys of letters, digits, `_`, `.`, `-` are custom
            properties (text, number or boolean); server-owned keys (`id`, `stateCode`, `leadScore`,
            `createdAt`, ...) are ignored; `null` is the same as an absent field (and removes a custom
            property). Limits: docs/integrators.md, Limits.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201
    """

    return sync_detailed(
        client=client,
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ContactInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201]:
    """Create or update a contact (upsert)

     Permission: `contacts:write`.

    Lookup by exact email, then by mobile digits (a Colombian number with or without `57`/`0057` in
    front is one number). The plan's contact limit is checked first (403 `PLAN_LIMIT_REACHED`). Nothing
    is written on any refusal. An update that changes nothing writes nothing: `updatedAt` stays the time
    of the last change.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (ContactInput): At least one of `email`, `mobile`/`whatsapp_phone` or
            `linkedConversationId` (POST). Location: a valid `cityCode`, or a `city` that resolves
            without doubt (`state` as a hint). Other keys of letters, digits, `_`, `.`, `-` are custom
            properties (text, number or boolean); server-owned keys (`id`, `stateCode`, `leadScore`,
            `createdAt`, ...) are ignored; `null` is the same as an absent field (and removes a custom
            property). Limits: docs/integrators.md, Limits.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201]
    """

    kwargs = _get_kwargs(
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ContactInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201 | None:
    """Create or update a contact (upsert)

     Permission: `contacts:write`.

    Lookup by exact email, then by mobile digits (a Colombian number with or without `57`/`0057` in
    front is one number). The plan's contact limit is checked first (403 `PLAN_LIMIT_REACHED`). Nothing
    is written on any refusal. An update that changes nothing writes nothing: `updatedAt` stays the time
    of the last change.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (ContactInput): At least one of `email`, `mobile`/`whatsapp_phone` or
            `linkedConversationId` (POST). Location: a valid `cityCode`, or a `city` that resolves
            without doubt (`state` as a hint). Other keys of letters, digits, `_`, `.`, `-` are custom
            properties (text, number or boolean); server-owned keys (`id`, `stateCode`, `leadScore`,
            `createdAt`, ...) are ignored; `null` is the same as an absent field (and removes a custom
            property). Limits: docs/integrators.md, Limits.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CityError | Error | Error | UpsertContactResponse200 | UpsertContactResponse201
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
