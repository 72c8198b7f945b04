from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deal_input import DealInput
from ...models.error import Error
from ...models.update_deal_response_200 import UpdateDealResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: DealInput,
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
        "method": "put",
        "url": "/deals/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | UpdateDealResponse200 | None:
    if response.status_code == 200:
        response_200 = UpdateDealResponse200.from_dict(response.json())

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
) -> Response[Error | UpdateDealResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: DealInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | UpdateDealResponse200]:
    """Move a deal between stages, rename it, set its amount

     Permission: `deals:write`.

    Stages of the default deal pipeline: `new`, `qualified`, `proposal`, `won`, `lost`. Winning or
    losing closes the deal, so the contact's next submission of the form opens a new one.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (DealInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UpdateDealResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: DealInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | UpdateDealResponse200 | None:
    """Move a deal between stages, rename it, set its amount

     Permission: `deals:write`.

    Stages of the default deal pipeline: `new`, `qualified`, `proposal`, `won`, `lost`. Winning or
    losing closes the deal, so the contact's next submission of the form opens a new one.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (DealInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UpdateDealResponse200
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: DealInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | UpdateDealResponse200]:
    """Move a deal between stages, rename it, set its amount

     Permission: `deals:write`.

    Stages of the default deal pipeline: `new`, `qualified`, `proposal`, `won`, `lost`. Winning or
    losing closes the deal, so the contact's next submission of the form opens a new one.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (DealInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UpdateDealResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        organization_id=organization_id,
        x_organization_id=x_organization_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: DealInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | UpdateDealResponse200 | None:
    """Move a deal between stages, rename it, set its amount

     Permission: `deals:write`.

    Stages of the default deal pipeline: `new`, `qualified`, `proposal`, `won`, `lost`. Winning or
    losing closes the deal, so the contact's next submission of the form opens a new one.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (DealInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UpdateDealResponse200
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
