import { ResetPasswordRequest } from '@shared/api/identity';

/** The server's limits, read from the shared request schema so the two cannot drift apart. */
export const PASSWORD_LIMITS = {
  min: ResetPasswordRequest.shape.password.minLength ?? 8,
  max: ResetPasswordRequest.shape.password.maxLength ?? 256,
};

export type PasswordIssue = 'tooShort' | 'tooLong' | 'mismatch';

/** What keeps a new password (and its repetition) from being accepted, if anything. */
export function passwordIssue(password: string, confirmation: string): PasswordIssue | undefined {
  if (password.length < PASSWORD_LIMITS.min) return 'tooShort';
  if (password.length > PASSWORD_LIMITS.max) return 'tooLong';
  if (password !== confirmation) return 'mismatch';
  return undefined;
}
