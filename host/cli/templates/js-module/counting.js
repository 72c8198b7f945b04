// The module's rules, apart from the bindings so that plain node tests them.

/** The calls counted so far, from the store's value (undefined: no call yet). */
export function callsAfter(stored) {
  const counted = Number.parseInt(new TextDecoder().decode(stored ?? new Uint8Array()), 10);
  return Number.isSafeInteger(counted) && counted >= 0 ? counted + 1 : 1;
}
