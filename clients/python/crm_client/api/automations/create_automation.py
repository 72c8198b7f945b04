from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.automation_input import AutomationInput
from ...models.create_automation_response_201 import CreateAutomationResponse201
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: AutomationInput,
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
        "url": "/automations",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CreateAutomationResponse201 | Error | None:
    if response.status_code == 201:
        response_201 = CreateAutomationResponse201.from_dict(response.json())

        return response_201

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
) -> Response[CreateAutomationResponse201 | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AutomationInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CreateAutomationResponse201 | Error]:
    """Save a new automation as a draft

     Permission: `automations:write`.

    Automations are only read and saved as drafts through the API; the app activates and pauses them.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (AutomationInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateAutomationResponse201 | Error]
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
    body: AutomationInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CreateAutomationResponse201 | Error | None:
    """Save a new automation as a draft

     Permission: `automations:write`.

    Automations are only read and saved as drafts through the API; the app activates and pauses them.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (AutomationInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateAutomationResponse201 | Error
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
    body: AutomationInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CreateAutomationResponse201 | Error]:
    """Save a new automation as a draft

     Permission: `automations:write`.

    Automations are only read and saved as drafts through the API; the app activates and pauses them.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (AutomationInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateAutomationResponse201 | Error]
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
    body: AutomationInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CreateAutomationResponse201 | Error | None:
    """Save a new automation as a draft

     Permission: `automations:write`.

    Automations are only read and saved as drafts through the API; the app activates and pauses them.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (AutomationInput):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateAutomationResponse201 | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
