"""A tour of the API through the generated Python client (clients/python),
against a live host: what docs/integrators.md walks through, each answer
checked. tests/it/clients.rs starts the host (with the Envia simulator and a
webhook receiver) and runs this with clients/python on PYTHONPATH; any
mismatch raises, and the process exits non-zero.

Environment: CRM_API_URL (ending in /api), CRM_ORG_ID and CRM_TOKEN (a `*`
token of an organization whose Envia integration and origin are set),
CRM_LIMITED_TOKEN (an organization on plan free, contact limit 2),
CRM_FORM_ID and CRM_FORM_KEY (a form that opens deals), CRM_WEBHOOK_URL (a
receiver), CRM_TOUR (a word that keeps this tour's records apart).
"""

import os
import sys
from http import HTTPStatus

from crm_client import AuthenticatedClient, Client
from crm_client.api.catalogs import list_municipalities, list_states, resolve_city
from crm_client.api.companies import create_company, get_company, list_companies
from crm_client.api.contacts import get_contact, list_contacts, upsert_contact
from crm_client.api.forms import submit_form, submit_public_form
from crm_client.api.identity import get_me
from crm_client.api.import_ import get_import, import_contacts, list_imports
from crm_client.api.shipments import generate_shipment, get_shipment, quote_shipment
from crm_client.api.webhooks import list_event_types, test_webhook
from crm_client.models import (
    CityError,
    CompanyInput,
    ContactInput,
    Error,
    EventType,
    FormFields,
    GenerateShipmentResponse200,
    GenerateShipmentResponse201,
    ImportInput,
    Package,
    PackageDimensions,
    RatesInput,
    ShipmentInput,
    TestWebhookBody,
    UpsertContactResponse200,
    UpsertContactResponse201,
)
from crm_client.types import UNSET, Response

env = os.environ
TOUR = env["CRM_TOUR"]
api = AuthenticatedClient(base_url=env["CRM_API_URL"], token=env["CRM_TOKEN"], raise_on_unexpected_status=True)
checked = 0


def check(cond: bool, what: str, got: object = None) -> None:
    global checked
    if not cond:
        raise AssertionError(f"{what}: got {got!r}")
    checked += 1


def answer(r: Response, status: int, kind: type):
    """The parsed body of `r`, which must have `status` and parse as `kind`."""
    check(r.status_code == status, f"status {status} ({kind.__name__})", (r.status_code, r.content[:300]))
    check(isinstance(r.parsed, kind), f"a {kind.__name__}", r.parsed)
    return r.parsed


def refusal(r: Response, status: int, code: str | None, kind: type = Error):
    """A documented refusal, parsed into the client's error type (`code` None:
    a plain one, a message and no code)."""
    error = answer(r, status, kind)
    want = UNSET if code is None else code
    check(error.success is False and error.code == want and bool(error.message), f"code {code}", (error.code, error.message))
    return error


def email(name: str) -> str:
    return f"{name}.{TOUR}@acme.co"


# Identity.
me = answer(get_me.sync_detailed(client=api), 200, get_me.GetMeResponse200).data
check(me.organization.id == env["CRM_ORG_ID"], "/me names the token's organization", me.organization.id)
check("*" in me.token.permissions, "a * token", me.token.permissions)
anonymous = Client(base_url=env["CRM_API_URL"])
refusal(get_me.sync_detailed(client=anonymous), 401, "API_TOKEN_MISSING")

# The catalog, revalidated with its ETag.
states = list_states.sync_detailed(client=api)
check(len(answer(states, 200, list_states.ListStatesResponse200).data) == 33, "33 states")
etag = states.headers.get("etag")
check(bool(etag), "an ETag", dict(states.headers))
again = list_states.sync_detailed(client=api, if_none_match=etag)
check(again.status_code == HTTPStatus.NOT_MODIFIED and again.content == b"", "304 with no body", again.status_code)
towns = answer(list_municipalities.sync_detailed(client=api, q="medellin"), 200, list_municipalities.ListMunicipalitiesResponse200)
check(towns.data[0].code == "05001", "Medellín first", [t.code for t in towns.data])
resolved = answer(resolve_city.sync_detailed(client=api, city="villanueva", state="casanare"), 200, resolve_city.Resolution)
check(resolved.status.value == "resolved" and resolved.data.code == "85440", "Villanueva, Casanare", resolved.to_dict())

# Contacts: create, upsert, get, list.
ana = ContactInput(email=email("ana"), first_name="Ana", city="Medellín", id_type="NIT", id_number="900123456-8")
created = answer(upsert_contact.sync_detailed(client=api, body=ana), 201, UpsertContactResponse201).data
check(created.city_code == "05001" and created.state == "Antioquia", "the city resolved", created.to_dict())
check(created.id_type == "31", "NIT is DIAN code 31", created.id_type)
updated = answer(
    upsert_contact.sync_detailed(client=api, body=ContactInput(email=email("ana"), last_name="Ruiz")),
    200,
    UpsertContactResponse200,
)
check(updated.contact.field_id == created.id, "the same contact, updated", updated.to_dict())
got = answer(get_contact.sync_detailed(created.id, client=api), 200, get_contact.GetContactResponse200).data
check(got.email == email("ana") and got.first_name == "Ana" and got.last_name == "Ruiz", "get", got.to_dict())
found = answer(list_contacts.sync_detailed(client=api, search=f"ana.{TOUR}", city_code=["05001"]), 200, list_contacts.ListContactsResponse200)
check([c.id for c in found.data] == [created.id] and found.pagination.total == 1, "list", found.to_dict())
refusal(get_contact.sync_detailed("0" * 24, client=api), 404, "NOT_FOUND")

# Every documented error of a contact, in the client's error types.
doubt = refusal(upsert_contact.sync_detailed(client=api, body=ContactInput(email=email("beto"), city="Villanueva")), 422, "CITY_UNRESOLVED", CityError)
codes = sorted(c.code for c in doubt.candidates)
check({"85440", "13873", "44874", "68872"} <= set(codes) and doubt.status.value == "ambiguous", "candidates", codes)
bad_nit = ContactInput(email=email("beto"), id_type="NIT", id_number="900123456-1")
wrong = refusal(upsert_contact.sync_detailed(client=api, body=bad_nit), 400, "INVALID_ID_NUMBER")
check(wrong.field == "idNumber", "the field named", wrong.to_dict())
plain = refusal(upsert_contact.sync_detailed(client=api, body=ContactInput(first_name="Nadie")), 400, None)
check("email, mobile" in plain.message, "a contact with no way to reach it: a plain refusal", plain.to_dict())
limited = AuthenticatedClient(base_url=env["CRM_API_URL"], token=env["CRM_LIMITED_TOKEN"])
for n in (1, 2):
    answer(upsert_contact.sync_detailed(client=limited, body=ContactInput(email=email(f"free{n}"))), 201, UpsertContactResponse201)
full = refusal(upsert_contact.sync_detailed(client=limited, body=ContactInput(email=email("free3"))), 403, "PLAN_LIMIT_REACHED")
check("limit of 2 contacts" in full.message, "the limit told", full.message)

# Companies.
acme = CompanyInput(name=f"Acme {TOUR} S.A.S.", id_type="NIT", id_number="900123456-8", city="Bogotá")
company = answer(create_company.sync_detailed(client=api, body=acme), 201, create_company.CreateCompanyResponse201).data
check(company.city_code == "11001", "the company's city", company.to_dict())
same = answer(get_company.sync_detailed(company.id, client=api), 200, get_company.GetCompanyResponse200).data
check(same.name == acme.name, "get company", same.to_dict())
listed = answer(list_companies.sync_detailed(client=api, search=f"acme {TOUR} sas"), 200, list_companies.ListCompaniesResponse200)
check([c.id for c in listed.data] == [company.id], "a company found without its dots", listed.to_dict())
refusal(create_company.sync_detailed(client=api, body=CompanyInput(name="X", id_type="NIT", id_number="900123456-1")), 400, "INVALID_ID_NUMBER")

# A shipment: a quote and a label, against the Envia simulator.
buyer = ContactInput.from_dict({"email": email("cliente"), "firstName": "Carla", "lastName": "Gómez", "phone": "6041234567",
                                "cityCode": "05001", "address": "Cra 45 # 12-08", "idNumber": "1020304050"})
buyer_id = answer(upsert_contact.sync_detailed(client=api, body=buyer), 201, UpsertContactResponse201).data.id
box = Package(weight=2, dimensions=PackageDimensions(length=30, width=20, height=10), content="Ropa", declared_value=150000)
quote = answer(quote_shipment.sync_detailed(client=api, body=RatesInput(contact_id=buyer_id, packages=[box])), 200, quote_shipment.QuoteShipmentResponse200)
ground = [r for r in quote.rates if r.carrier == "coordinadora" and r.service == "ground"]
check(len(ground) == 1 and ground[0].provider == "envia" and ground[0].price > 0, "Coordinadora's ground rate", quote.to_dict())
label = ShipmentInput(contact_id=buyer_id, carrier="coordinadora", service="ground", packages=[box], idempotency_key=f"order-{TOUR}-1")
shipment = answer(generate_shipment.sync_detailed(client=api, body=label), 201, GenerateShipmentResponse201).data
check(shipment.status.value == "created" and bool(shipment.tracking_number), "a label", shipment.to_dict())
reused = answer(generate_shipment.sync_detailed(client=api, body=label), 200, GenerateShipmentResponse200)
check(reused.reused is True and reused.data.id == shipment.id, "the same key, the same label", reused.to_dict())
tracked = answer(get_shipment.sync_detailed(shipment.id, client=api), 200, get_shipment.GetShipmentResponse200).data
check(tracked.tracking_number == shipment.tracking_number, "get shipment", tracked.to_dict())

# A form: the token door, then the public one (no token, the form's key).
lead = FormFields.from_dict({"nombre": "Dora Díaz", "correo": email("dora"), "ciudad": "Cali"})
submitted = answer(submit_form.sync_detailed(env["CRM_FORM_ID"], client=api, body=lead), 201, submit_form.SubmitFormResponse201).data
check(bool(submitted.contact_id and submitted.deal_id and submitted.submission_id), "contact, deal, submission", submitted.to_dict())
dora = answer(get_contact.sync_detailed(submitted.contact_id, client=api), 200, get_contact.GetContactResponse200).data
check(dora.first_name == "Dora" and dora.city_code == "76001", "the lead's contact", dora.to_dict())
public = FormFields.from_dict({"nombre": "Eva Pérez", "email": email("eva")})
door = submit_public_form.sync_detailed(env["CRM_FORM_ID"], client=anonymous, body=public, key=env["CRM_FORM_KEY"])
check(bool(answer(door, 201, submit_public_form.SubmitPublicFormResponse201).data.submission_id), "the public door")
refusal(submit_public_form.sync_detailed(env["CRM_FORM_ID"], client=anonymous, body=public, key="pk_wrong"), 401, "FORM_KEY_INVALID")

# An import, and its history.
rows = [{"email": email("imp1"), "firstName": "Uno", "city": "Bogota"}, {"email": email("imp2"), "city": "Villanueva"}]
report = answer(import_contacts.sync_detailed(client=api, body=ImportInput(rows=rows)), 200, import_contacts.ImportContactsResponse200).data
check((report.total, report.created, report.rejected, len(report.warnings)) == (2, 2, 0, 1), "lenient: one doubtful city kept as text", report.to_dict())
check(report.warnings[0].row == 2 and report.warnings[0].code == "CITY_UNCONFIRMED", "the warning's row", report.to_dict())
history = answer(list_imports.sync_detailed(client=api), 200, list_imports.ListImportsResponse200)
check(report.id in [i.id for i in history.data], "the import in the history", history.to_dict())
one = answer(get_import.sync_detailed(report.id, client=api), 200, get_import.GetImportResponse200).data
check(one.created == 2 and len(one.warnings) == 1, "one import, with its warnings", one.to_dict())
refusal(get_import.sync_detailed("0" * 24, client=api), 404, "IMPORT_NOT_FOUND")

# Webhooks: the event types, and a test send to the receiver.
types = answer(list_event_types.sync_detailed(client=api), 200, list_event_types.ListEventTypesResponse200)
names = {t.type_ for t in types.data}
check(names == set(EventType), "every event type listed", names)
check(all(t.schema.to_dict().get("type") == "object" for t in types.data), "each with its body's JSON Schema", types.to_dict())
sent = answer(test_webhook.sync_detailed(client=api, body=TestWebhookBody(url=env["CRM_WEBHOOK_URL"], type_=EventType.FORM_SUBMITTED)), 200, test_webhook.TestWebhookResponse200).data
check(sent.status == 200 and sent.body == "ok", "the receiver answered", sent.to_dict())
try:  # a type the document does not list is refused by the client itself
    EventType("order.shipped")
    check(False, "order.shipped is no event type")
except ValueError:
    pass

print(f"python tour: {checked} checks passed")
sys.exit(0)
