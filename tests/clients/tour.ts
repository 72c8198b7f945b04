/**
 * A tour of the API through the TypeScript client (clients/typescript: types
 * from openapi-typescript, calls through openapi-fetch), against a live host:
 * what docs/integrators.md walks through, each answer checked. tests/it/clients.rs
 * compiles it with `tsc --strict` beside a copy of clients/typescript/src and
 * runs it with node; any mismatch throws, and the process exits non-zero.
 *
 * Environment: as tests/clients/tour.py says.
 */
import { crmClient, isCityError } from "./src/index.js";
import type { CityError, CrmError, EventType } from "./src/index.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const TOUR = env("CRM_TOUR");
const base = env("CRM_API_URL");
const api = crmClient(base, env("CRM_TOKEN"));
let checked = 0;

function check(cond: boolean, what: string, got?: unknown): asserts cond {
  if (!cond) throw new Error(`${what}: got ${JSON.stringify(got)}`);
  checked += 1;
}

/** The body of a success with this status. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }, status: number, what: string): T {
  check(r.response.status === status && r.data !== undefined, `${what}: status ${status}`, [r.response.status, r.error]);
  return r.data;
}

/** A documented refusal, parsed into the client's error type (`code` undefined: a plain one, a message and no code). */
function refused<E extends CrmError | CityError>(
  r: { data?: unknown; error?: E; response: Response },
  status: number,
  code: string | undefined,
): E {
  const error = r.error;
  check(r.response.status === status && error !== undefined, `refused with ${status}`, [r.response.status, r.data]);
  check(error.success === false && error.code === code && error.message.length > 0, `code ${code}`, error);
  return error;
}

const email = (name: string): string => `${name}.${TOUR}@acme.co`;

// Identity.
const me = ok(await api.GET("/me"), 200, "/me").data;
check(me.organization.id === env("CRM_ORG_ID"), "/me names the token's organization", me.organization);
check(me.token.permissions.includes("*"), "a * token", me.token);
const anonymous = crmClient(base, ""); // "Bearer " and nothing: no token
refused(await anonymous.GET("/me"), 401, "API_TOKEN_MISSING");

// The catalog, revalidated with its ETag.
const states = await api.GET("/catalogs/states");
check(ok(states, 200, "states").data.length === 33, "33 states");
const etag = states.response.headers.get("etag");
check(etag !== null && etag.length > 0, "an ETag");
const again = await api.GET("/catalogs/states", { params: { header: { "If-None-Match": etag } } });
check(again.response.status === 304 && again.data === undefined, "304 with no body", again.response.status);
const towns = ok(await api.GET("/catalogs/municipalities", { params: { query: { q: "medellin" } } }), 200, "towns");
check(towns.data[0]?.code === "05001", "Medellín first", towns.data[0]);
const resolved = ok(
  await api.GET("/catalogs/resolve", { params: { query: { city: "villanueva", state: "casanare" } } }),
  200,
  "resolve",
);
check(resolved.status === "resolved" && JSON.stringify(resolved.data).includes('"85440"'), "Villanueva, Casanare", resolved);

// Contacts: create, upsert, get, list.
const ana = { email: email("ana"), firstName: "Ana", city: "Medellín", idType: "NIT", idNumber: "900123456-8" };
const created = await api.POST("/contacts", { body: ana });
const contact = ok(created, 201, "create");
check("data" in contact, "a new contact's body", contact);
const id = contact.data.id;
check(contact.data.cityCode === "05001" && contact.data.state === "Antioquia", "the city resolved", contact.data);
check(contact.data.idType === "31", "NIT is DIAN code 31", contact.data.idType);
const updated = ok(await api.POST("/contacts", { body: { email: email("ana"), lastName: "Ruiz" } }), 200, "upsert");
check("contact" in updated && updated.contact._id === id, "the same contact, updated", updated);
const got = ok(await api.GET("/contacts/{id}", { params: { path: { id } } }), 200, "get").data;
check(got.email === email("ana") && got.firstName === "Ana" && got.lastName === "Ruiz", "get", got);
const found = ok(
  await api.GET("/contacts", { params: { query: { search: `ana.${TOUR}`, cityCode: ["05001"] } } }),
  200,
  "list",
);
check(found.data.length === 1 && found.data[0]?.id === id && found.pagination.total === 1, "list", found);
refused(await api.GET("/contacts/{id}", { params: { path: { id: "0".repeat(24) } } }), 404, "NOT_FOUND");

// Every documented error of a contact, in the client's error types.
const doubt = refused(await api.POST("/contacts", { body: { email: email("beto"), city: "Villanueva" } }), 422, "CITY_UNRESOLVED");
check(isCityError(doubt), "a city error", doubt);
const codes = doubt.candidates.map((c) => c.code);
check(["85440", "13873", "44874", "68872"].every((c) => codes.includes(c)), "candidates", codes);
check(doubt.status === "ambiguous", "ambiguous", doubt.status);
const badNit = { email: email("beto"), idType: "NIT", idNumber: "900123456-1" };
const wrong = refused(await api.POST("/contacts", { body: badNit }), 400, "INVALID_ID_NUMBER");
check(!isCityError(wrong) && wrong.field === "idNumber", "the field named", wrong);
const plain = refused(await api.POST("/contacts", { body: { firstName: "Nadie" } }), 400, undefined);
check(plain.message.includes("email, mobile"), "a contact with no way to reach it: a plain refusal", plain);
const limited = crmClient(base, env("CRM_LIMITED_TOKEN"));
for (const n of [1, 2]) ok(await limited.POST("/contacts", { body: { email: email(`free${n}`) } }), 201, `free ${n}`);
const full = refused(await limited.POST("/contacts", { body: { email: email("free3") } }), 403, "PLAN_LIMIT_REACHED");
check(full.message.includes("limit of 2 contacts"), "the limit told", full.message);

// Companies.
const acme = { name: `Acme ${TOUR} S.A.S.`, idType: "NIT", idNumber: "900123456-8", city: "Bogotá" };
const company = ok(await api.POST("/companies", { body: acme }), 201, "company").data;
check(company.cityCode === "11001", "the company's city", company);
const same = ok(await api.GET("/companies/{id}", { params: { path: { id: company.id } } }), 200, "get company").data;
check(same.name === acme.name, "get company", same);
const listed = ok(await api.GET("/companies", { params: { query: { search: `acme ${TOUR} sas` } } }), 200, "companies");
check(listed.data.length === 1 && listed.data[0]?.id === company.id, "a company found without its dots", listed);
const badCompany = { name: "X", idType: "NIT", idNumber: "900123456-1" };
refused(await api.POST("/companies", { body: badCompany }), 400, "INVALID_ID_NUMBER");

// A shipment: a quote and a label, against the Envia simulator.
const buyer = {
  email: email("cliente"), firstName: "Carla", lastName: "Gómez", phone: "6041234567",
  cityCode: "05001", address: "Cra 45 # 12-08", idNumber: "1020304050",
};
const buyerCreated = ok(await api.POST("/contacts", { body: buyer }), 201, "buyer");
check("data" in buyerCreated, "a new buyer", buyerCreated);
const contactId = buyerCreated.data.id;
const box = { weight: 2, dimensions: { length: 30, width: 20, height: 10 }, content: "Ropa", declaredValue: 150000 };
const quote = ok(await api.POST("/shipments/rates", { body: { contactId, packages: [box] } }), 200, "rates");
const ground = quote.rates.filter((r) => r.carrier === "coordinadora" && r.service === "ground");
check(ground.length === 1 && ground[0]?.provider === "envia" && ground[0].price > 0, "Coordinadora's ground rate", quote);
const label = { contactId, carrier: "coordinadora", service: "ground", packages: [box], idempotencyKey: `order-${TOUR}-1` };
const shipment = ok(await api.POST("/shipments", { body: label }), 201, "label").data;
check(shipment.status === "created" && !!shipment.trackingNumber, "a label", shipment);
const reused = ok(await api.POST("/shipments", { body: label }), 200, "label again");
check("reused" in reused && reused.reused === true && reused.data.id === shipment.id, "the same key, the same label", reused);
const tracked = ok(await api.GET("/shipments/{id}", { params: { path: { id: shipment.id } } }), 200, "shipment").data;
check(tracked.trackingNumber === shipment.trackingNumber, "get shipment", tracked);

// A form: the token door, then the public one (no token, the form's key).
const form = env("CRM_FORM_ID");
const lead = { nombre: "Dora Díaz", correo: email("dora"), ciudad: "Cali" };
const submitted = ok(await api.POST("/forms/{id}/submit", { params: { path: { id: form } }, body: lead }), 201, "submit").data;
check(!!submitted.contactId && !!submitted.dealId && !!submitted.submissionId, "contact, deal, submission", submitted);
const dora = ok(await api.GET("/contacts/{id}", { params: { path: { id: submitted.contactId } } }), 200, "lead").data;
check(dora.firstName === "Dora" && dora.cityCode === "76001", "the lead's contact", dora);
const door = crmClient(base, "");
const publicLead = { nombre: "Eva Pérez", email: email("eva") };
const key = env("CRM_FORM_KEY");
const atDoor = await door.POST("/v1/forms/submit/{id}", { params: { path: { id: form }, query: { key } }, body: publicLead });
check(!!ok(atDoor, 201, "the public door").data.submissionId, "the public door");
const wrongKey = { path: { id: form }, query: { key: "pk_wrong" } };
refused(await door.POST("/v1/forms/submit/{id}", { params: wrongKey, body: publicLead }), 401, "FORM_KEY_INVALID");

// An import, and its history.
const rows = [{ email: email("imp1"), firstName: "Uno", city: "Bogota" }, { email: email("imp2"), city: "Villanueva" }];
const report = ok(await api.POST("/import/contacts", { body: { rows } }), 200, "import").data;
check(report.total === 2 && report.created === 2 && report.rejected === 0 && report.warnings.length === 1, "lenient", report);
check(report.warnings[0]?.row === 2 && report.warnings[0].code === "CITY_UNCONFIRMED", "the warning's row", report);
const history = ok(await api.GET("/import/contacts"), 200, "history");
check(history.data.some((i) => i.id === report.id), "the import in the history", history);
const one = ok(await api.GET("/import/contacts/{id}", { params: { path: { id: report.id } } }), 200, "one import").data;
check(one.created === 2 && one.warnings.length === 1, "one import, with its warnings", one);
refused(await api.GET("/import/contacts/{id}", { params: { path: { id: "0".repeat(24) } } }), 404, "IMPORT_NOT_FOUND");

// Webhooks: the event types, and a test send to the receiver.
const every: EventType[] = ["contact.created", "form.submitted", "deal.stage_changed", "conversation.stage_entered", "webhook.endpoint_disabled"];
const types = ok(await api.GET("/webhooks/event-types"), 200, "event types").data;
check(types.length === every.length && every.every((t) => types.some((x) => x.type === t)), "every event type", types);
check(types.every((t) => t.schema["type"] === "object"), "each with its body's JSON Schema", types);
const hook = { url: env("CRM_WEBHOOK_URL"), type: "form.submitted" as const };
const sent = ok(await api.POST("/webhooks/test", { body: hook }), 200, "test send").data;
check(sent.status === 200 && sent.body === "ok", "the receiver answered", sent);

console.log(`typescript tour: ${checked} checks passed`);
