/**
 * Normalises a `number` field value to the string that is stored (SPEC §2.4): spaces of any kind
 * (incl. no-break and thin spaces, as pasted from spreadsheets) are removed, a decimal comma becomes
 * a point, a leading `+` and needless zeros go. Digits are kept as text, so no precision is lost:
 * `"12 345 678 901 234 567 890,5"` → `"12345678901234567890.5"`. Returns undefined for anything
 * that is not a number.
 */
export function normalizeNumber(input: string | number): string | undefined {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return undefined;
    input = String(input);
  }
  const compact = input.replace(/[\s\u00a0\u2007\u202f\u2009\u200a']/g, '').replace(/^\u2212/, '-');
  const match = /^([+-]?)(\d+)?(?:[.,](\d+)?)?$/.exec(compact);
  if (!match || (match[2] === undefined && match[3] === undefined)) return undefined;
  // Thousands separated by commas or points ("1,234,567") are ambiguous with decimals: refused.
  const sign = match[1] === '-' ? '-' : '';
  const integer = (match[2] ?? '0').replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const value = fraction ? `${integer}.${fraction}` : integer;
  return value === '0' ? '0' : `${sign}${value}`;
}
