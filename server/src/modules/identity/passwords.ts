import { type Algorithm, hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the enum is a const enum that cannot be imported as a value here.
const ARGON2ID = 2 as Algorithm;

/** argon2id with OWASP's recommended cost (19 MiB, 2 passes, 1 lane). */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified against when the account does not exist, so a wrong e-mail costs as much time as a wrong password.
const decoy = hashPassword('decoy password that matches nothing');

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
