import { describe, expect, it } from 'vitest';
import { normalizeNumber } from './number';

describe('normalizeNumber', () => {
  it.each([
    ['12 345 678 901 234 567 890,5', '12345678901234567890.5'],
    ['1\u00a0234,50', '1234.5'],
    ['1\u202f000', '1000'],
    [' 42 ', '42'],
    ['+7', '7'],
    ['-0,25', '-0.25'],
    ['\u22123', '-3'],
    ['007', '7'],
    ['0.000', '0'],
    ['-0', '0'],
    [',5', '0.5'],
    ['5,', '5'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['0.1234567890123456789012345678', '0.1234567890123456789012345678'],
    [1.5, '1.5'],
    [-12, '-12'],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeNumber(input)).toBe(expected);
  });

  it.each(['', ' ', 'abc', '12abc', '1,234,567', '1.2.3', '--1', '1e5', '.', ',', 'NaN', '0x10'])(
    'refuses %j',
    (input) => {
      expect(normalizeNumber(input)).toBeUndefined();
    },
  );

  it('refuses non-finite numbers', () => {
    expect(normalizeNumber(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(normalizeNumber(Number.NaN)).toBeUndefined();
  });
});
