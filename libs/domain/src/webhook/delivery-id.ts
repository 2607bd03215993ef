/**
 * The id of the delivery of one message to one endpoint: the `webhook-id` an RSP dedupes on, the same on every
 * attempt and on a redelivery. It is derived, not drawn, so a message delivered at its first attempt needs no row to
 * have an id: a UUID of version 8 (RFC 9562, custom layout) holding the message's position in the dispatcher's
 * notification log (60 bits) and the endpoint's number (60 bits):
 *
 *   pppppppp-pppp-8ppp-8eee-eeeeeeeeeeee
 *
 * Deliveries recorded before this scheme keep their random (version 4 or 7) ids.
 */

const MAX = 2 ** 53 - 1;
const DERIVED = /^([0-9a-f]{8})-([0-9a-f]{4})-8([0-9a-f]{3})-8([0-9a-f]{3})-([0-9a-f]{12})$/;

const hex15 = (value: number): string => {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a position: ${value}`);
  return value.toString(16).padStart(15, '0');
};

/** The delivery id of the message at `position` to the endpoint numbered `endpointNo`. */
export function deliveryIdOf(position: number, endpointNo: number): string {
  const p = hex15(position);
  const e = hex15(endpointNo);
  return `${p.slice(0, 8)}-${p.slice(8, 12)}-8${p.slice(12)}-8${e.slice(0, 3)}-${e.slice(3)}`;
}

/** The position and endpoint number of a derived delivery id; undefined for any other id (a recorded random one). */
export function parseDeliveryId(id: string): { position: number; endpointNo: number } | undefined {
  const match = DERIVED.exec(id.toLowerCase());
  if (match === null) return undefined;
  const position = parseInt(match[1]! + match[2]! + match[3]!, 16);
  const endpointNo = parseInt(match[4]! + match[5]!, 16);
  if (position > MAX || endpointNo > MAX) return undefined;
  return { position, endpointNo };
}
