import assert from "node:assert/strict";
import test from "node:test";

import { callsAfter } from "./counting.js";

const bytes = (s) => new TextEncoder().encode(s);

test("calls count on from what the store holds", () => {
  assert.equal(callsAfter(undefined), 1);
  assert.equal(callsAfter(bytes("41")), 42);
  assert.equal(callsAfter(bytes("not a number")), 1);
});
