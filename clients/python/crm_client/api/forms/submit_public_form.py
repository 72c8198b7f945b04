from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.city_error import CityError
from ...models.error import Error
from ...models.form_fields import FormFields
from ...models.form_fields_multipart import FormFieldsMultipart
from ...models.form_fields_urlencoded import FormFieldsUrlencoded
from ...models.submit_public_form_response_200 import SubmitPublicFormResponse200
from ...models.submit_public_form_response_201 import SubmitPublicFormResponse201
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: FormFields | FormFieldsUrlencoded | FormFieldsMultipart | Unset = UNSET,
    key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["key"] = key

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/forms/submit/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    if isinstance(body, FormFields):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, FormFieldsUrlencoded):
        _kwargs["data"] = body.to_dict()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if isinstance(body, FormFieldsMultipart):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201 | None:
    if response.status_code == 200:
        response_200 = SubmitPublicFormResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = SubmitPublicFormResponse201.from_dict(response.json())

        return response_201

    if response.status_code == 303:
        response_303 = cast(Any, None)
        return response_303

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
) -> Response[Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201]:
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
    body: FormFields | FormFieldsUrlencoded | FormFieldsMultipart | Unset = UNSET,
    key: str | Unset = UNSET,
) -> Response[Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201]:
    """A form's public submit URL

     No token: the form's public key authenticates. JSON or what an HTML form posts; an HTML form's
    fields are read in the charset a `_charset_` field or the `Content-Type` names, else as UTF-8, else
    as windows-1252 (an ISO-8859-1 page's form). At most `CRM_FORM_RATE_PER_MINUTE` a minute per form
    and client address (an IPv6 client counts by its /64).

    Args:
        id (str):
        key (str | Unset):
        body (FormFields): Free-form fields: a name, `email`, a mobile (`telefono`, `celular`,
            `phone`...), a city (`ciudad`, `departamento`/`depto`/`dpto`/`estado` read as `state`),
            `utm_*`, `gclid`, `fbclid`, `referrer`; other keys become custom properties. `_gotcha` is
            the honeypot.
        body (FormFieldsUrlencoded): `FormFields` as an HTML form posts them (`application/x-www-
            form-urlencoded`): every value a text. A name sent more than once (a group of checkboxes,
            a multiple select; `interes[]` is `interes`) keeps every value, joined with `, `.
        body (FormFieldsMultipart): `FormFields` as an HTML form posts them (`multipart/form-
            data`): every value a text. A name sent more than once (a group of checkboxes, a multiple
            select; `interes[]` is `interes`) keeps every value, joined with `, `; a file part is left
            out.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        key=key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FormFields | FormFieldsUrlencoded | FormFieldsMultipart | Unset = UNSET,
    key: str | Unset = UNSET,
) -> Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201 | None:
    """A form's public submit URL

     No token: the form's public key authenticates. JSON or what an HTML form posts; an HTML form's
    fields are read in the charset a `_charset_` field or the `Content-Type` names, else as UTF-8, else
    as windows-1252 (an ISO-8859-1 page's form). At most `CRM_FORM_RATE_PER_MINUTE` a minute per form
    and client address (an IPv6 client counts by its /64).

    Args:
        id (str):
        key (str | Unset):
        body (FormFields): Free-form fields: a name, `email`, a mobile (`telefono`, `celular`,
            `phone`...), a city (`ciudad`, `departamento`/`depto`/`dpto`/`estado` read as `state`),
            `utm_*`, `gclid`, `fbclid`, `referrer`; other keys become custom properties. `_gotcha` is
            the honeypot.
        body (FormFieldsUrlencoded): `FormFields` as an HTML form posts them (`application/x-www-
            form-urlencoded`): every value a text. A name sent more than once (a group of checkboxes,
            a multiple select; `interes[]` is `interes`) keeps every value, joined with `, `.
        body (FormFieldsMultipart): `FormFields` as an HTML form posts them (`multipart/form-
            data`): every value a text. A name sent more than once (a group of checkboxes, a multiple
            select; `interes[]` is `interes`) keeps every value, joined with `, `; a file part is left
            out.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        key=key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FormFields | FormFieldsUrlencoded | FormFieldsMultipart | Unset = UNSET,
    key: str | Unset = UNSET,
) -> Response[Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201]:
    """A form's public submit URL

     No token: the form's public key authenticates. JSON or what an HTML form posts; an HTML form's
    fields are read in the charset a `_charset_` field or the `Content-Type` names, else as UTF-8, else
    as windows-1252 (an ISO-8859-1 page's form). At most `CRM_FORM_RATE_PER_MINUTE` a minute per form
    and client address (an IPv6 client counts by its /64).

    Args:
        id (str):
        key (str | Unset):
        body (FormFields): Free-form fields: a name, `email`, a mobile (`telefono`, `celular`,
            `phone`...), a city (`ciudad`, `departamento`/`depto`/`dpto`/`estado` read as `state`),
            `utm_*`, `gclid`, `fbclid`, `referrer`; other keys become custom properties. `_gotcha` is
            the honeypot.
        body (FormFieldsUrlencoded): `FormFields` as an HTML form posts them (`application/x-www-
            form-urlencoded`): every value a text. A name sent more than once (a group of checkboxes,
            a multiple select; `interes[]` is `interes`) keeps every value, joined with `, `.
        body (FormFieldsMultipart): `FormFields` as an HTML form posts them (`multipart/form-
            data`): every value a text. A name sent more than once (a group of checkboxes, a multiple
            select; `interes[]` is `interes`) keeps every value, joined with `, `; a file part is left
            out.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        key=key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FormFields | FormFieldsUrlencoded | FormFieldsMultipart | Unset = UNSET,
    key: str | Unset = UNSET,
) -> Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201 | None:
    """A form's public submit URL

     No token: the form's public key authenticates. JSON or what an HTML form posts; an HTML form's
    fields are read in the charset a `_charset_` field or the `Content-Type` names, else as UTF-8, else
    as windows-1252 (an ISO-8859-1 page's form). At most `CRM_FORM_RATE_PER_MINUTE` a minute per form
    and client address (an IPv6 client counts by its /64).

    Args:
        id (str):
        key (str | Unset):
        body (FormFields): Free-form fields: a name, `email`, a mobile (`telefono`, `celular`,
            `phone`...), a city (`ciudad`, `departamento`/`depto`/`dpto`/`estado` read as `state`),
            `utm_*`, `gclid`, `fbclid`, `referrer`; other keys become custom properties. `_gotcha` is
            the honeypot.
        body (FormFieldsUrlencoded): `FormFields` as an HTML form posts them (`application/x-www-
            form-urlencoded`): every value a text. A name sent more than once (a group of checkboxes,
            a multiple select; `interes[]` is `interes`) keeps every value, joined with `, `.
        body (FormFieldsMultipart): `FormFields` as an HTML form posts them (`multipart/form-
            data`): every value a text. A name sent more than once (a group of checkboxes, a multiple
            select; `interes[]` is `interes`) keeps every value, joined with `, `; a file part is left
            out.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CityError | Error | Error | SubmitPublicFormResponse200 | SubmitPublicFormResponse201
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            key=key,
        )
    ).parsed
