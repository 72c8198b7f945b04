// The provider's rules, apart from the bindings so that plain node tests them.

/** Price per service: a description, a base and a price per started kilogram, in COP. */
export const SERVICES = {
  same_day: ["Same day", 9000, 1500],
  next_day: ["Next day", 6000, 1000],
};

/** Every started kilogram is charged whole, one at least. */
export function price(weight, base, perKg) {
  return base + perKg * Math.max(1, Math.ceil(weight));
}
