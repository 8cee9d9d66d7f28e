import { API_KEY_PREFIX } from '@shared/api/bots';
import { randomToken, sha256Hex } from '../../platform/auth/secrets';

/** A raw key: the prefix and 256 random bits in base64url (43 characters). */
const KEY_SHAPE = /^orb_[A-Za-z0-9_-]{43}$/;

/** A new raw key with what is kept of it: its SHA-256 hex, and its first and last characters to recognise it. */
export interface GeneratedKey {
  raw: string;
  hash: string;
  prefix: string;
  last4: string;
}

export function generateKey(): GeneratedKey {
  const raw = `${API_KEY_PREFIX}${randomToken()}`;
  return { raw, hash: sha256Hex(raw), prefix: raw.slice(0, API_KEY_PREFIX.length + 4), last4: raw.slice(-4) };
}

/** Whether `value` has the shape of a key we issue (checked before any lookup). */
export function wellFormedKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}
