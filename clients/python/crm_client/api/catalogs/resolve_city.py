from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.resolution import Resolution
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    city: str | Unset = UNSET,
    state: str | Unset = UNSET,
    city_code: str | Unset = UNSET,
    country: str | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_organization_id, Unset):
        headers["X-Organization-Id"] = x_organization_id

    params: dict[str, Any] = {}

    params["city"] = city

    params["state"] = state

    params["cityCode"] = city_code

    params["country"] = country

    params["organizationId"] = organization_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/catalogs/resolve",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | Resolution | None:
    if response.status_code == 200:
        response_200 = Resolution.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | Resolution]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    city: str | Unset = UNSET,
    state: str | Unset = UNSET,
    city_code: str | Unset = UNSET,
    country: str | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | Resolution]:
    """Resolve a city as contacts do

     Any valid token.

    Each text is at most 100 characters (400 `VALIDATION_ERROR`).

    Args:
        city (str | Unset):
        state (str | Unset):
        city_code (str | Unset):
        country (str | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Resolution]
    """

    kwargs = _get_kwargs(
        city=city,
        state=state,
        city_code=city_code,
        country=country,
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
    city: str | Unset = UNSET,
    state: str | Unset = UNSET,
    city_code: str | Unset = UNSET,
    country: str | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | Resolution | None:
    """Resolve a city as contacts do

     Any valid token.

    Each text is at most 100 characters (400 `VALIDATION_ERROR`).

    Args:
        city (str | Unset):
        state (str | Unset):
        city_code (str | Unset):
        country (str | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Resolution
    """

    return sync_detailed(
        client=client,
        city=city,
        state=state,
        city_code=city_code,
        country=country,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    city: str | Unset = UNSET,
    state: str | Unset = UNSET,
    city_code: str | Unset = UNSET,
    country: str | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | Resolution]:
    """Resolve a city as contacts do

     Any valid token.

    Each text is at most 100 characters (400 `VALIDATION_ERROR`).

    Args:
        city (str | Unset):
        state (str | Unset):
        city_code (str | Unset):
        country (str | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Resolution]
    """

    kwargs = _get_kwargs(
        city=city,
        state=state,
        city_code=city_code,
        country=country,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    city: str | Unset = UNSET,
    state: str | Unset = UNSET,
    city_code: str | Unset = UNSET,
    country: str | Unset = UNSET,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | Resolution | None:
    """Resolve a city as contacts do

     Any valid token.

    Each text is at most 100 characters (400 `VALIDATION_ERROR`).

    Args:
        city (str | Unset):
        state (str | Unset):
        city_code (str | Unset):
        country (str | Unset):
        organization_id (str | Unset):
        x_organization_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Resolution
    """

    return (
        await asyncio_detailed(
            client=client,
            city=city,
            state=state,
            city_code=city_code,
            country=country,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
