from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.test_webhook_body import TestWebhookBody
from ...models.test_webhook_response_200 import TestWebhookResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: TestWebhookBody,
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
        "url": "/webhooks/test",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | TestWebhookResponse200 | None:
    if response.status_code == 200:
        response_200 = TestWebhookResponse200.from_dict(response.json())

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
) -> Response[Error | TestWebhookResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TestWebhookBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | TestWebhookResponse200]:
    """Send a signed sample event to a URL now

     Permission: `automations:write`.

    Sends one event of `type` (default `contact.created`; its body is the example of this document's
    `webhooks`), signed with the organization's secret as every delivery is, to `url` (the same address
    rules: 400 `WEBHOOK_URL_NOT_ALLOWED`), once, now, and answers what the receiver did. Nothing is
    stored or retried; the attempt has 15 s.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (TestWebhookBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TestWebhookResponse200]
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
    body: TestWebhookBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | TestWebhookResponse200 | None:
    """Send a signed sample event to a URL now

     Permission: `automations:write`.

    Sends one event of `type` (default `contact.created`; its body is the example of this document's
    `webhooks`), signed with the organization's secret as every delivery is, to `url` (the same address
    rules: 400 `WEBHOOK_URL_NOT_ALLOWED`), once, now, and answers what the receiver did. Nothing is
    stored or retried; the attempt has 15 s.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (TestWebhookBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TestWebhookResponse200
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
    body: TestWebhookBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[Error | TestWebhookResponse200]:
    """Send a signed sample event to a URL now

     Permission: `automations:write`.

    Sends one event of `type` (default `contact.created`; its body is the example of this document's
    `webhooks`), signed with the organization's secret as every delivery is, to `url` (the same address
    rules: 400 `WEBHOOK_URL_NOT_ALLOWED`), once, now, and answers what the receiver did. Nothing is
    stored or retried; the attempt has 15 s.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (TestWebhookBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TestWebhookResponse200]
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
    body: TestWebhookBody,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Error | TestWebhookResponse200 | None:
    """Send a signed sample event to a URL now

     Permission: `automations:write`.

    Sends one event of `type` (default `contact.created`; its body is the example of this document's
    `webhooks`), signed with the organization's secret as every delivery is, to `url` (the same address
    rules: 400 `WEBHOOK_URL_NOT_ALLOWED`), once, now, and answers what the receiver did. Nothing is
    stored or retried; the attempt has 15 s.

    Args:
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (TestWebhookBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TestWebhookResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            organization_id=organization_id,
            x_organization_id=x_organization_id,
        )
    ).parsed
