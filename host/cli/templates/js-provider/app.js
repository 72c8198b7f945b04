// `__NAME__`: a shipping provider for the CRM, built against
// `crm:plugin@__WIT_VERSION__` (`wit/plugin.wit`, the contract's published
// text) with componentize-js. It starts as a courier with flat rates and no
// external API; make it call your carrier through the `http` import
// (declare the carrier's hosts in `describe`: the host refuses any other).
//
// Answer `rejected` only when nothing happened at the carrier (retrying is
// then safe); when you cannot tell (a timeout, a 5xx after sending), answer
// `unknown-outcome` so that the host never creates a second label. An export
// answers a `result`'s error by throwing it: a variant is `{ tag, val }`.
import { log, now } from "crm:plugin/runtime@__WIT_VERSION__";

import { SERVICES, price } from "./pricing.js";

const CARRIER = "__NAME__";
// Tracking numbers are this prefix and the shipment's reference.
const PREFIX = "TRK";

function rejected(code, message) {
  return { tag: "rejected", val: { code, message } };
}

const weightOf = (packages) => packages.reduce((sum, p) => sum + p.weight, 0);

export const provider = {
  describe() {
    return { name: "__NAME__", version: "0.1.0", hosts: [], needsApiKey: false };
  },

  carriers() {
    return [CARRIER];
  },

  rates(request) {
    const weight = weightOf(request.packages);
    const rates = Object.entries(SERVICES).map(([service, [description, base, perKg]]) => ({
      carrier: CARRIER,
      service,
      serviceDescription: description,
      price: price(weight, base, perKg),
      currency: "COP",
      deliveryEstimate: description,
    }));
    return { rates, failed: [] };
  },

  generate(request) {
    if (request.carrier !== CARRIER) throw rejected("UNKNOWN_CARRIER", "This provider's carrier is __NAME__");
    const service = SERVICES[request.service];
    if (!service) throw rejected("UNKNOWN_SERVICE", `The services are ${Object.keys(SERVICES).join(", ")}`);
    const [, base, perKg] = service;
    log("info", `label for ${request.reference}`);
    return {
      trackingNumber: PREFIX + request.reference,
      trackUrl: undefined,
      labelUrl: undefined,
      price: price(weightOf(request.packages), base, perKg),
      currency: "COP",
      providerShipmentId: request.reference,
    };
  },

  track(trackingNumbers) {
    return trackingNumbers
      .filter((number) => number.startsWith(PREFIX))
      .map((number) => ({
        trackingNumber: number,
        status: "created",
        events: [{ status: "created", description: "Label created", location: undefined, occurredAt: now() }],
      }));
  },

  cancel(carrier, trackingNumber) {
    if (!trackingNumber.startsWith(PREFIX)) throw rejected("NOT_FOUND", "Unknown tracking number");
    return { amount: 0, currency: "COP", returned: false };
  },

  stateAbbreviation(stateCode) {
    return stateCode;
  },

  parseWebhook(headers, body) {
    throw { code: "NO_WEBHOOK", message: "This carrier sends no webhooks" };
  },
};
