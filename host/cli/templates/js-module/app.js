// `__NAME__`: a module for the CRM, built against `crm:plugin@__WIT_VERSION__`
// (`wit/plugin.wit`, the contract's published text) with componentize-js. It
// serves `GET /api/__NAME__` and counts its calls in the organization's store.
//
// The host has checked the token, the organization and the permission before
// `handle` runs; the store is already scoped to the organization and to this
// module. Each call runs in a fresh instance with a deadline and a memory cap.
//
// The bindings follow the WIT: an interface is imported as
// "crm:plugin/<name>@<version>", records are objects with camelCase fields,
// `option<T>` is the value or `undefined`, `list<u8>` a Uint8Array, and an
// imported function's `result` error is thrown.
import { get, put } from "crm:plugin/store@__WIT_VERSION__";

import { callsAfter } from "./counting.js";

const text = new TextEncoder();

function answer(status, body) {
  return { status, headers: [["content-type", "application/json"]], body: text.encode(JSON.stringify(body)) };
}

export const handler = {
  describe() {
    // `permission`: what a token needs (e.g. "__NAME__:read"); undefined: any token.
    const route = { method: "GET", path: "/__NAME__", permission: undefined, module: undefined, deadlineMs: undefined };
    return { name: "__NAME__", version: "0.1.0", routes: [route] };
  },

  handle(caller, request) {
    let calls;
    try {
      calls = callsAfter(get(text.encode("calls")));
      put(text.encode("calls"), text.encode(String(calls)));
    } catch {
      return answer(500, { success: false, message: "The store failed" });
    }
    return answer(200, { success: true, organization: caller.orgId, calls });
  },
};
