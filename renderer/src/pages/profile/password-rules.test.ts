import { describe, expect, it } from 'vitest';
import { passwordIssue } from './password-rules';

describe('new passwords', () => {
  it('applies the server’s length limits, then asks for the same password twice', () => {
    expect(passwordIssue('short', 'short')).toBe('tooShort');
    expect(passwordIssue('x'.repeat(257), 'x'.repeat(257))).toBe('tooLong');
    expect(passwordIssue('long enough', 'long enougH')).toBe('mismatch');
    expect(passwordIssue('long enough', 'long enough')).toBeUndefined();
  });
});
