import assert from "node:assert/strict";
import test from "node:test";

import { price } from "./pricing.js";

test("every started kilogram is charged whole, and one at least", () => {
  assert.equal(price(0.2, 6000, 1000), 7000);
  assert.equal(price(2.0, 6000, 1000), 8000);
  assert.equal(price(2.1, 6000, 1000), 9000);
});
