import { Decimal } from 'decimal.js';

/**
 * Exact arithmetic for money and quantities. Amounts are rounded once, here, to the currency's minor unit
 * (half-even, like a ledger); quantities to 6 decimals (fractional shares), always toward zero so an order never
 * asks for more than was computed; prices to 6 decimals.
 */
export const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof D>;

export const QUANTITY_DECIMALS = 6;
export const PRICE_DECIMALS = 6;

export function dec(value: string | number | Dec): Dec {
  return new D(value);
}

export function roundMoney(value: Dec, minorUnits = 2): Dec {
  return value.toDecimalPlaces(minorUnits, Decimal.ROUND_HALF_EVEN);
}

export function roundQuantity(value: Dec): Dec {
  return value.toDecimalPlaces(QUANTITY_DECIMALS, Decimal.ROUND_DOWN);
}

export function roundPrice(value: Dec): Dec {
  return value.toDecimalPlaces(PRICE_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** A JSON number for the wire; values are already rounded to their documented precision. */
export function num(value: string | number | Dec): number {
  return new D(value).toNumber();
}
