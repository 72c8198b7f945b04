/**
 * The CRM's REST API from TypeScript: `schema.d.ts` is generated from the
 * API's OpenAPI document by openapi-typescript (scripts/generate-clients.sh;
 * do not edit it), and the calls go through openapi-fetch, typed by it:
 * each call answers `{ data, error, response }`, `error` being the body of a
 * documented refusal (`CrmError`, or `CityError` for a city the catalog
 * cannot resolve without doubt).
 */
import createClient from "openapi-fetch";
import type { Client, ClientOptions } from "openapi-fetch";
import type { components, paths, webhooks } from "./schema.js";

export type { components, paths, webhooks };

/** Every refusal: `{ success: false, message, code, ... }`. */
export type CrmError = components["schemas"]["Error"];
/** `CITY_UNRESOLVED` / `INVALID_CITY_CODE`, with the catalog's `candidates`. */
export type CityError = components["schemas"]["CityError"];
/** The body of a webhook delivery, and the event types there are. */
export type CrmEvent = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

/** A client of the API at `baseUrl` (ending in `/api`), sending `token` as a Bearer token. */
export function crmClient(baseUrl: string, token: string, options: ClientOptions = {}): Client<paths> {
  return createClient<paths>({
    ...options,
    baseUrl,
    headers: { ...(options.headers as Record<string, string> | undefined), Authorization: `Bearer ${token}` },
  });
}

/** Whether a refusal is a city error (it carries the catalog's `candidates`). */
export function isCityError(error: CrmError | CityError): error is CityError {
  return error.code === "CITY_UNRESOLVED" || error.code === "INVALID_CITY_CODE";
}
