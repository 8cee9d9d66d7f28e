import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random opaque token (refresh, reset, invitation): 256 bits, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Lowercase hex SHA-256: how opaque tokens are stored and looked up. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
