from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.list_contacts_match_mode import ListContactsMatchMode
from ...models.list_contacts_response_200 import ListContactsResponse200
from ...models.list_contacts_sort_by import ListContactsSortBy
from ...models.list_contacts_sort_order import ListContactsSortOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    page: int | Unset = 1,
    limit: int | Unset = 100,
    search: str | Unset = UNSET,
    match_mode: ListContactsMatchMode | Unset = UNSET,
    sort_by: ListContactsSortBy | Unset = UNSET,
    sort_order: ListContactsSortOrder | Unset = UNSET,
    created_from: str | Unset = UNSET,
    created_to: str | Unset = UNSET,
    missing: str | Unset = UNSET,
    exists: str | Unset = UNSET,
    city_code: list[str] | Unset = UNSET,
    state_code: list[str] | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_organization_id, Unset):
        headers["X-Organization-Id"] = x_organization_id

    params: dict[str, Any] = {}

    params["page"] = page

    params["limit"] = limit

    params["search"] = search

    json_match_mode: str | Unset = UNSET
    if not isinstance(match_mode, Unset):
        json_match_mode = match_mode.value

    params["matchMode"] = json_match_mode

    json_sort_by: str | Unset = UNSET
    if not isinstance(sort_by, Unset):
        json_sort_by = sort_by.value

    params["sortBy"] = json_sort_by

    json_sort_order: str | Unset = UNSET
    if not isinstance(sort_order, Unset):
        json_sort_order = sort_order.value

    params["sortOrder"] = json_sort_order

    params["createdFrom"] = created_from

    params["createdTo"] = created_to

    params["missing"] = missing

    params["exists"] = exists

    json_city_code: list[str] | Unset = UNSET
    if not isinstance(city_code, Unset):
        json_city_code = city_code

    params["cityCode"] = json_city_code

    json_state_code: list[str] | Unset = UNSET
    if not isinstance(state_code, Unset):
        json_state_code = state_code

    params["stateCode"] = json_state_code

    params["organizationId"] = organization_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/contacts",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | ListContactsResponse200 | None:
    if response.status_code == 200:
        response_200 = ListContactsResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

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

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | ListContactsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    page: int | Unset = 1,
    limit: int | Unset = 100,
    search: str | Unset = UNSET,
    match_mode: ListContactsMatchMode | Unset = UNSET,
    sort_by: ListContactsSortBy | Unset = UNSET,
    sort_order: ListContactsSortOrder | Unset = UNSET,
    created_from: str | Unset = UNSET,
    created_to: str | Unset = UNSET,
    missing: str | Unset = UNSET,
    exists: str | Unset = UNSET,
    city_code: list[str] | Unset = UNSET,
    state_code: list[str] | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | ListContactsResponse200]:
    """List contacts

     Permission: `contacts:read`.

    Any other query key filters by the contact property of that name (repeatable, OR over values;
    different keys AND); a `mobile` filter's value is read as digits (`300 123 4567` finds
    `3001234567`): at most 20 such keys and 100 values a key (400 `VALIDATION_ERROR`). A list walks an
    index, so memory stays bounded at any size.

    Args:
        page (int | Unset):  Default: 1.
        limit (int | Unset):  Default: 100.
        search (str | Unset):
        match_mode (ListContactsMatchMode | Unset):
        sort_by (ListContactsSortBy | Unset):
        sort_order (ListContactsSortOrder | Unset):
        created_from (str | Unset):
        created_to (str | Unset):
        missing (str | Unset):
        exists (str | Unset):
        city_code (list[str] | Unset):
        state_code (list[str] | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListContactsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
        search=search,
        match_mode=match_mode,
        sort_by=sort_by,
        sort_order=sort_order,
        created_from=created_from,
        created_to=created_to,
        missing=missing,
        exists=exists,
        city_code=city_code,
        state_code=state_code,
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
    page: int | Unset = 1,
    limit: int | Unset = 100,
    search: str | Unset = UNSET,
    match_mode: ListContactsMatchMode | Unset = UNSET,
    sort_by: ListContactsSortBy | Unset = UNSET,
    sort_order: ListContactsSortOrder | Unset = UNSET,
    created_from: str | Unset = UNSET,
    created_to: str | Unset = UNSET,
    missing: str | Unset = UNSET,
    exists: str | Unset = UNSET,
    city_code: list[str] | Unset = UNSET,
    state_code: list[str] | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | ListContactsResponse200 | None:
    """List contacts

     Permission: `contacts:read`.

    Any other query key filters by the contact property of that name (repeatable, OR over values;
    different keys AND); a `mobile` filter's value is read as digits (`300 123 4567` finds
    `3001234567`): at most 20 such keys and 100 values a key (400 `VALIDATION_ERROR`). A list walks an
    index, so memory stays bounded at any size.

    Args:
        page (int | Unset):  Default: 1.
        limit (int | Unset):  Default: 100.
        search (str | Unset):
        match_mode (ListContactsMatchMode | Unset):
        sort_by (ListContactsSortBy | Unset):
        sort_order (ListContactsSortOrder | Unset):
        created_from (str | Unset):
        created_to (str | Unset):
        missing (str | Unset):
        exists (str | Unset):
        city_code (list[str] | Unset):
        state_code (list[str] | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListContactsResponse200
    """

    return sync_detailed(
        client=client,
        page=page,
        limit=limit,
        search=search,
        match_mode=match_mode,
        sort_by=sort_by,
        sort_order=sort_order,
        created_from=created_from,
        created_to=created_to,
        missing=missing,
        exists=exists,
        city_code=city_code,
        state_code=state_code,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    page: int | Unset = 1,
    limit: int | Unset = 100,
    search: str | Unset = UNSET,
    match_mode: ListContactsMatchMode | Unset = UNSET,
    sort_by: ListContactsSortBy | Unset = UNSET,
    sort_order: ListContactsSortOrder | Unset = UNSET,
    created_from: str | Unset = UNSET,
    created_to: str | Unset = UNSET,
    missing: str | Unset = UNSET,
    exists: str | Unset = UNSET,
    city_code: list[str] | Unset = UNSET,
    state_code: list[str] | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | ListContactsResponse200]:
    """List contacts

     Permission: `contacts:read`.

    Any other query key filters by the contact property of that name (repeatable, OR over values;
    different keys AND); a `mobile` filter's value is read as digits (`300 123 4567` finds
    `3001234567`): at most 20 such keys and 100 values a key (400 `VALIDATION_ERROR`). A list walks an
    index, so memory stays bounded at any size.

    Args:
        page (int | Unset):  Default: 1.
        limit (int | Unset):  Default: 100.
        search (str | Unset):
        match_mode (ListContactsMatchMode | Unset):
        sort_by (ListContactsSortBy | Unset):
        sort_order (ListContactsSortOrder | Unset):
        created_from (str | Unset):
        created_to (str | Unset):
        missing (str | Unset):
        exists (str | Unset):
        city_code (list[str] | Unset):
        state_code (list[str] | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListContactsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
        search=search,
        match_mode=match_mode,
        sort_by=sort_by,
        sort_order=sort_order,
        created_from=created_from,
        created_to=created_to,
        missing=missing,
        exists=exists,
        city_code=city_code,
        state_code=state_code,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    page: int | Unset = 1,
    limit: int | Unset = 100,
    search: str | Unset = UNSET,
    match_mode: ListContactsMatchMode | Unset = UNSET,
    sort_by: ListContactsSortBy | Unset = UNSET,
    sort_order: ListContactsSortOrder | Unset = UNSET,
    created_from: str | Unset = UNSET,
    created_to: str | Unset = UNSET,
    missing: str | Unset = UNSET,
    exists: str | Unset = UNSET,
    city_code: list[str] | Unset = UNSET,
    state_code: list[str] | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | ListContactsResponse200 | None:
    """List contacts

     Permission: `contacts:read`.

    Any other query key filters by the contact property of that name (repeatable, OR over values;
    different keys AND); a `mobile` filter's value is read as digits (`300 123 4567` finds
    `3001234567`): at most 20 such keys and 100 values a key (400 `VALIDATION_ERROR`). A list walks an
    index, so memory stays bounded at any size.

    Args:
        page (int | Unset):  Default: 1.
        limit (int | Unset):  Default: 100.
        search (str | Unset):
        match_mode (ListContactsMatchMode | Unset):
        sort_by (ListContactsSortBy | Unset):
        sort_order (ListContactsSortOrder | Unset):
        created_from (str | Unset):
        created_to (str | Unset):
        missing (str | Unset):
        exists (str | Unset):
        city_code (list[str] | Unset):
        state_code (list[str] | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListContactsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            limit=limit,
            search=search,
            match_mode=match_mode,
            sort_by=sort_by,
            sort_order=sort_order,
            created_from=created_from,
            created_to=created_to,
            missing=missing,
            exists=exists,
            city_code=city_code,
            state_code=state_code,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
