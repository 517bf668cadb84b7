/**
 * An ISO 8601 time from the gateway as `2027-02-23 20:38 UTC`: the same for everyone reading it,
 * wherever they are. Anything that is no time comes back as it is.
 *
 * @example
 * formatMoment('2027-02-23T20:38:12.000Z'); // '2027-02-23 20:38 UTC'
 */
export function formatMoment(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
