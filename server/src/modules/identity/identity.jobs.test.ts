import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import type { Mail, Mailer } from '../../platform/mail/mailer';

/** A mail server that can be down: while it is, every send fails as an unreachable SMTP server does. */
const sent: Mail[] = [];
let serverDown = false;
const mailer: Mailer = {
  transport: 'smtp',
  async send(mail) {
    if (serverDown) throw new Error('connect ECONNREFUSED 127.0.0.1:25');
    sent.push(mail);
  },
};

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp({ mailer });
  admin = await createOrg(t);
});
afterAll(() => t.close());

async function resetMailJobs() {
  const { rows } = await t.database.db.query<{ state: string; attempts: number; last_error: string | null }>(
    `SELECT state, attempts, last_error FROM jobs WHERE kind = 'identity.password_reset_mail' ORDER BY created_at`,
  );
  return rows;
}

describe('e-mails as durable jobs', () => {
  it('delays a password-reset e-mail while the mail server is down, and sends a working link once it is back', async () => {
    serverDown = true;
    const asked = await apiClient(t).post('/api/auth/forgot-password', { email: admin.email });
    expect(asked.status).toBe(202);
    await jobsDone(t);
    expect(sent.filter((mail) => mail.to === admin.email)).toEqual([]);
    expect(await resetMailJobs()).toEqual([
      { state: 'queued', attempts: 1, last_error: 'Error: connect ECONNREFUSED 127.0.0.1:25' },
    ]);
    // No plain token waits in the database while the e-mail is delayed.
    const { rows } = await t.database.db.query<{ text: string }>('SELECT payload::text AS text FROM jobs');
    expect(rows.map((row) => row.text).join()).not.toMatch(/token/i);

    serverDown = false;
    await t.database.db.query("UPDATE jobs SET run_after = now() WHERE state = 'queued'");
    expect(await t.app.jobs.runDue()).toBe(1);
    const mail = sent.find((one) => one.to === admin.email);
    const token = decodeURIComponent(/reset-password\?token=([^\s]+)/.exec(mail?.text ?? '')?.[1] ?? '');
    const reset = await apiClient(t).post('/api/auth/reset-password', { token, password: 'a brand new password' });
    expect(reset.status).toBe(204);
    expect(
      (await apiClient(t).post('/api/auth/login', { email: admin.email, password: 'a brand new password' })).status,
    ).toBe(200);
    expect(await resetMailJobs()).toEqual([{ state: 'succeeded', attempts: 2, last_error: null }]);
  });

  it('sends an invitation enqueued with the invited user, and none when the invitation is refused', async () => {
    const admin = await createOrg(t);
    const invited = await admin.client.post('/api/users', { email: 'pavel@example.org', name: 'Павел' });
    expect(invited.status).toBe(201);
    const taken = await admin.client.post('/api/users', { email: 'pavel@example.org', name: 'Павел снова' });
    expect(taken.status).toBe(409);
    await jobsDone(t);
    expect(sent.filter((mail) => mail.to === 'pavel@example.org').map((mail) => mail.subject)).toHaveLength(1);
  });
});
