from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.city_error import CityError
from ...models.company_input import CompanyInput
from ...models.error import Error
from ...models.update_company_response_200 import UpdateCompanyResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: CompanyInput,
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
        "url": "/companies/{id}".format(
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
) -> CityError | Error | Error | UpdateCompanyResponse200 | None:
    if response.status_code == 200:
        response_200 = UpdateCompanyResponse200.from_dict(response.json())

        return response_200

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
) -> Response[CityError | Error | Error | UpdateCompanyResponse200]:
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
    body: CompanyInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CityError | Error | Error | UpdateCompanyResponse200]:
    """Update a company

     Permission: `companies:write`.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (CompanyInput): `name` is required on POST. Location and identity document (`idType`,
            `idNumber`) as on contacts. Other keys are custom properties; `null` is the same as an
            absent field.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CityError | Error | Error | UpdateCompanyResponse200]
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
    body: CompanyInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CityError | Error | Error | UpdateCompanyResponse200 | None:
    """Update a company

     Permission: `companies:write`.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (CompanyInput): `name` is required on POST. Location and identity document (`idType`,
            `idNumber`) as on contacts. Other keys are custom properties; `null` is the same as an
            absent field.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CityError | Error | Error | UpdateCompanyResponse200
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
    body: CompanyInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> Response[CityError | Error | Error | UpdateCompanyResponse200]:
    """Update a company

     Permission: `companies:write`.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (CompanyInput): `name` is required on POST. Location and identity document (`idType`,
            `idNumber`) as on contacts. Other keys are custom properties; `null` is the same as an
            absent field.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CityError | Error | Error | UpdateCompanyResponse200]
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
    body: CompanyInput,
    organization_id: str | Unset = UNSET,
    x_organization_id: str | Unset = UNSET,
) -> CityError | Error | Error | UpdateCompanyResponse200 | None:
    """Update a company

     Permission: `companies:write`.

    Args:
        id (str):
        organization_id (str | Unset):
        x_organization_id (str | Unset):
        body (CompanyInput): `name` is required on POST. Location and identity document (`idType`,
            `idNumber`) as on contacts. Other keys are custom properties; `null` is the same as an
            absent field.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CityError | Error | Error | UpdateCompanyResponse200
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
