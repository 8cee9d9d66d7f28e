import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { readOutbox } from '../../server/src/platform/mail/mailer';
import { type ApiClient, apiClient } from './api';
import type { TestApp } from './app';
import { jobsDone } from './jobs';

let counter = 0;
function unique(): string {
  counter += 1;
  return `${Date.now().toString(36)}${counter}${randomBytes(2).toString('hex')}`;
}

export interface Member {
  userId: string;
  organizationId: string;
  email: string;
  password: string;
  name: string;
  refreshToken: string;
  client: ApiClient;
}

export async function signIn(
  t: TestApp,
  email: string,
  password: string,
): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await apiClient(t).post('/api/auth/login', { email, password });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function memberFromTokens(
  t: TestApp,
  tokens: { accessToken: string; refreshToken: string },
  email: string,
  password: string,
): Promise<Member> {
  const client = apiClient(t, tokens.accessToken);
  const me = await client.get('/api/auth/me');
  expect(me.status, JSON.stringify(me.body)).toBe(200);
  return {
    userId: me.body.user.id,
    organizationId: me.body.organization.id,
    email,
    password,
    name: me.body.user.name,
    refreshToken: tokens.refreshToken,
    client,
  };
}

/** Registers a new organization; returns its first administrator, signed in. */
export async function createOrg(t: TestApp, name = `Org ${unique()}`): Promise<Member> {
  const email = `admin-${unique()}@example.org`;
  const password = 'correct horse battery';
  const response = await apiClient(t).post('/api/auth/register', {
    organizationName: name,
    name: 'Admin',
    email,
    password,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return memberFromTokens(t, response.body, email, password);
}

/** The token of the newest e-mail to `email` (reset or invitation link). */
export async function tokenFromOutbox(t: TestApp, email: string): Promise<string> {
  await jobsDone(t);
  const mails = (await readOutbox(t.dataDir)).filter((mail) => mail.to === email);
  const last = mails.at(-1);
  expect(last, `no e-mail to ${email}`).toBeDefined();
  const token = /reset-password\?token=([^\s]+)/.exec(last?.text ?? '')?.[1];
  expect(token, 'no link in the e-mail').toBeDefined();
  return decodeURIComponent(token as string);
}

/** Invites a colleague as `admin`, accepts the invitation and signs them in. */
export async function createMember(
  t: TestApp,
  admin: Member,
  options: { name?: string; isAdmin?: boolean; roleIds?: string[] } = {},
): Promise<Member> {
  const email = `member-${unique()}@example.org`;
  const password = 'member password 1';
  const invited = await admin.client.post('/api/users', { email, name: options.name ?? 'Member', ...options });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = await tokenFromOutbox(t, email);
  const accepted = await apiClient(t).post('/api/auth/reset-password', { token, password });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(204);
  return memberFromTokens(t, await signIn(t, email, password), email, password);
}

/** Creates a form as `admin` (fields and workflow as given; default workflow otherwise). */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are free-form.
export async function createForm(admin: Member, body: Record<string, unknown> = {}): Promise<any> {
  const response = await admin.client.post('/api/forms', { name: `Form ${unique()}`, fields: [], ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** Creates a task as `member`. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are free-form.
export async function createTask(member: Member, formId: string, body: Record<string, unknown> = {}): Promise<any> {
  const response = await member.client.post('/api/tasks', { formId, title: `Task ${unique()}`, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** A row tree's nodes as nested labels: a leaf by its label, a node with children as [label, children]. */
// biome-ignore lint/suspicious/noExplicitAny: tree nodes are read loosely.
export function treeShape(nodes: any[]): unknown[] {
  return nodes.map((n) => (n.children.length ? [n.label, treeShape(n.children)] : n.label));
}

/** A directory's row tree as `member` reads it, as nested labels (`treeShape`). */
export async function rowTreeShape(member: Member, directoryId: string): Promise<unknown[]> {
  const response = await member.client.get(`/api/directories/${directoryId}/rows/tree`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return treeShape(response.body.nodes);
}
