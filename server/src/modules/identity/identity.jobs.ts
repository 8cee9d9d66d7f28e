import { randomToken, sha256Hex } from '../../platform/auth/secrets';
import { inUnit } from '../../platform/db/unit-of-work';
import { enqueueJob, type JobHandler, type RunningJob } from '../../platform/jobs/jobs';
import type { AuthDeps } from './auth.service';
import { invitationMail, resetPasswordMail } from './identity.mail';
import * as repo from './identity.repo';

/** Kinds of the identity module's durable jobs. */
export const PASSWORD_RESET_MAIL = 'identity.password_reset_mail';
export const INVITATION_MAIL = 'identity.invitation_mail';

export const RESET_TOKEN_SECONDS = 3_600;
export const INVITATION_TOKEN_SECONDS = 7 * 86_400;

/** A link to the page where a reset or invitation token sets the password. */
export function setPasswordLink(publicUrl: string, token: string): string {
  return `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
}

/** Enqueues an e-mail of the identity module in the unit of the change that asks for it. */
export function enqueueMail(
  unit: Parameters<typeof enqueueJob>[0],
  kind: typeof PASSWORD_RESET_MAIL | typeof INVITATION_MAIL,
  organizationId: string,
  payload: { userId: string; inviterId?: string },
): Promise<string | undefined> {
  return enqueueJob(unit, { kind, organizationId, payload });
}

/**
 * A new set-password token for the user, stored as its SHA-256 only: made when the e-mail is sent,
 * so no plain token waits in the jobs table (a retried e-mail carries a new one, the old one replaced).
 */
async function newSetPasswordLink(deps: AuthDeps, userId: string, seconds: number): Promise<string> {
  const token = randomToken();
  await inUnit(deps, ({ tx }) => repo.setResetToken(tx, userId, sha256Hex(token), seconds));
  return setPasswordLink(deps.publicUrl, token);
}

async function sendPasswordReset(deps: AuthDeps, job: RunningJob): Promise<void> {
  const user = await repo.findUser(deps.db, job.organizationId as string, String(job.payload.userId));
  if (!user || user.status === 'deactivated') return;
  const link = await newSetPasswordLink(deps, user.id, RESET_TOKEN_SECONDS);
  await deps.mailer.send(resetPasswordMail(user.locale, user.email, link));
}

async function sendInvitation(deps: AuthDeps, job: RunningJob): Promise<void> {
  const organizationId = job.organizationId as string;
  const user = await repo.findUser(deps.db, organizationId, String(job.payload.userId));
  // Joined or deactivated meanwhile: the invitation has nothing left to do.
  if (user?.status !== 'invited') return;
  const inviter = await repo.findUser(deps.db, organizationId, String(job.payload.inviterId));
  const organization = await repo.findOrganization(deps.db, organizationId);
  if (!organization) return;
  const link = await newSetPasswordLink(deps, user.id, INVITATION_TOKEN_SECONDS);
  await deps.mailer.send(
    invitationMail(user.locale, user.email, organization.name, inviter?.name ?? organization.name, link),
  );
}

/** E-mails go out as durable jobs: a mail server that is down delays them instead of losing them. */
export function identityJobs(deps: AuthDeps): Record<string, JobHandler> {
  return {
    [PASSWORD_RESET_MAIL]: { effects: 'outside', run: (job) => sendPasswordReset(deps, job) },
    [INVITATION_MAIL]: { effects: 'outside', run: (job) => sendInvitation(deps, job) },
  };
}
