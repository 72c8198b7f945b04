from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.recover_deliveries_body import RecoverDeliveriesBody
from ...models.recover_deliveries_response_200 import RecoverDeliveriesResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: RecoverDeliveriesBody,
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
        "url": "/webhooks/deliveries/recover",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RecoverDeliveriesResponse200 | None:
    if response.status_code == 200:
        response_200 = RecoverDeliveriesResponse200.from_dict(response.json())

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
) -> Response[Error | RecoverDeliveriesResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RecoverDeliveriesBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | RecoverDeliveriesResponse200]:
    """Send again every failed delivery of a window

     Permission: `automations:write`.

    Every delivery that failed, created from `since` (inclusive) to `until` (exclusive; open when
    absent), to `url` when given, is made pending again, due at once, its retry schedule started over
    and its event's id kept, so a receiver that was down catches up and de-duplicates by `webhook-id`.
    At most 10,000 a call, oldest first: `more` says the window holds more, and the same call sends the
    next ones.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (RecoverDeliveriesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RecoverDeliveriesResponse200]
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
    body: RecoverDeliveriesBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | RecoverDeliveriesResponse200 | None:
    """Send again every failed delivery of a window

     Permission: `automations:write`.

    Every delivery that failed, created from `since` (inclusive) to `until` (exclusive; open when
    absent), to `url` when given, is made pending again, due at once, its retry schedule started over
    and its event's id kept, so a receiver that was down catches up and de-duplicates by `webhook-id`.
    At most 10,000 a call, oldest first: `more` says the window holds more, and the same call sends the
    next ones.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (RecoverDeliveriesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RecoverDeliveriesResponse200
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
    body: RecoverDeliveriesBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | RecoverDeliveriesResponse200]:
    """Send again every failed delivery of a window

     Permission: `automations:write`.

    Every delivery that failed, created from `since` (inclusive) to `until` (exclusive; open when
    absent), to `url` when given, is made pending again, due at once, its retry schedule started over
    and its event's id kept, so a receiver that was down catches up and de-duplicates by `webhook-id`.
    At most 10,000 a call, oldest first: `more` says the window holds more, and the same call sends the
    next ones.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (RecoverDeliveriesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RecoverDeliveriesResponse200]
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
    body: RecoverDeliveriesBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | RecoverDeliveriesResponse200 | None:
    """Send again every failed delivery of a window

     Permission: `automations:write`.

    Every delivery that failed, created from `since` (inclusive) to `until` (exclusive; open when
    absent), to `url` when given, is made pending again, due at once, its retry schedule started over
    and its event's id kept, so a receiver that was down catches up and de-duplicates by `webhook-id`.
    At most 10,000 a call, oldest first: `more` says the window holds more, and the same call sends the
    next ones.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (RecoverDeliveriesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RecoverDeliveriesResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
