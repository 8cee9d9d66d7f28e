import type { Delegation, DelegationRequest, UpdateDelegationRequest } from '@shared/api/delegations';
import type { ProblemFieldError } from '@shared/api/problem';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit, type UnitDeps } from '../../platform/db/unit-of-work';
import type { DomainEvents } from '../../platform/events';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { enqueueJob } from '../../platform/jobs/jobs';
import * as forms from '../forms/forms.service';
import * as members from '../identity/members.service';
import * as substitutes from '../tasks/substitutes.service';
import { mayManageDelegationsOf } from './delegation.policy';
import * as repo from './delegation.repo';

const delegationNotFound = (id: string) => Problem.of('not_found', `There is no delegation ${id} you can manage.`);

function present(row: repo.DelegationRow, application: repo.ApplicationRow | undefined): Delegation {
  return {
    id: row.id,
    userId: row.user_id,
    substituteUserId: row.substitute_user_id,
    formId: row.form_id,
    from: row.starts_at.toISOString(),
    to: row.ends_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    application: application
      ? { state: application.state, applied: application.applied, total: application.total }
      : null,
  };
}

async function presentAll(db: Queryable, organizationId: string, rows: repo.DelegationRow[]): Promise<Delegation[]> {
  const applications = new Map(
    (
      await repo.applications(
        db,
        organizationId,
        rows.map((row) => row.id),
      )
    ).map((a) => [a.delegation_id, a]),
  );
  return rows.map((row) => present(row, applications.get(row.id)));
}

function invalid(errors: ProblemFieldError[]): Problem {
  return Problem.of('validation_failed', `${errors[0]?.detail ?? 'Invalid delegation'}. Correct the listed fields.`, {
    errors,
  });
}

function assertMayManage(auth: AuthContext, userId: string): void {
  if (!mayManageDelegationsOf(auth, userId)) {
    throw Problem.of('forbidden', 'Only the user themself or an administrator may manage their substitutes.');
  }
}

/** Checks a delegation's references and period, refusing with the fields named; nothing is stored. */
async function checked(
  tx: Queryable,
  auth: AuthContext,
  id: string,
  value: z.output<typeof DelegationRequest>,
): Promise<{ startsAt: Date; endsAt: Date }> {
  const errors: ProblemFieldError[] = [];
  const field = (name: string, detail: string, code: string) =>
    errors.push({ location: 'body', pointer: `#/${name}`, detail, code });
  const known = new Set(await members.knownUserIds(tx, auth.organizationId, [value.userId]));
  if (!known.has(value.userId)) field('userId', 'There is no such user in your organization', 'unknown_user');
  const active = await members.activeUserIds(tx, auth.organizationId, [value.substituteUserId]);
  if (active.length === 0) {
    field('substituteUserId', 'The substitute must be an active member of your organization', 'unknown_user');
  }
  if (value.substituteUserId === value.userId)
    field('substituteUserId', 'A user cannot substitute for themself', 'self_delegation');
  if (value.formId) {
    const form = await forms.findForm(tx, auth.organizationId, value.formId);
    if (!form || form.deleted_at) field('formId', 'There is no such form in your organization', 'unknown_form');
  }
  const startsAt = new Date(value.from);
  const endsAt = new Date(value.to);
  if (endsAt <= startsAt) field('to', 'The end must come after the start', 'ends_before_start');
  if (errors.length > 0) throw invalid(errors);
  await repo.lockUserDelegations(tx, auth.organizationId, value.userId);
  const period = { id, userId: value.userId, formId: value.formId, startsAt, endsAt };
  if (await repo.overlapping(tx, auth.organizationId, period)) {
    throw Problem.of(
      'conflict',
      `This period overlaps another ${value.formId ? 'substitute for the same form' : 'default substitute'} of the user. Shorten one of them.`,
    );
  }
  return { startsAt, endsAt };
}

export async function listDelegations(deps: UnitDeps, auth: AuthContext, userId = auth.userId) {
  assertMayManage(auth, userId);
  return {
    items: await presentAll(
      deps.db,
      auth.organizationId,
      await repo.listDelegations(deps.db, auth.organizationId, userId),
    ),
  };
}

export async function getDelegation(deps: UnitDeps, auth: AuthContext, id: string): Promise<Delegation> {
  const row = await repo.findDelegation(deps.db, auth.organizationId, id);
  if (!row || !mayManageDelegationsOf(auth, row.user_id)) throw delegationNotFound(id);
  return (await presentAll(deps.db, auth.organizationId, [row]))[0] as Delegation;
}

async function save(deps: UnitDeps, auth: AuthContext, id: string, value: z.output<typeof DelegationRequest>) {
  assertMayManage(auth, value.userId);
  await inUnit(deps, async (unit) => {
    const { tx } = unit;
    const period = await checked(tx, auth, id, value);
    const before = await repo.findDelegation(tx, auth.organizationId, id);
    await repo.upsertDelegation(tx, {
      id,
      organizationId: auth.organizationId,
      userId: value.userId,
      substituteUserId: value.substituteUserId,
      formId: value.formId,
      ...period,
      createdBy: auth.userId,
    });
    const sameCover =
      before?.substitute_user_id === value.substituteUserId &&
      before.form_id === value.formId &&
      before.starts_at.getTime() === period.startsAt.getTime();
    if (!sameCover && period.endsAt > new Date()) {
      await scheduleApplication(unit, auth.organizationId, id, period.startsAt);
    }
    if (before && period.endsAt < before.ends_at) await cutShort(tx, before, period.endsAt);
  });
  return getDelegation(deps, auth, id);
}

export function createDelegation(deps: UnitDeps, auth: AuthContext, input: z.output<typeof DelegationRequest>) {
  return save(deps, auth, newId(), input);
}

export async function updateDelegation(
  deps: UnitDeps,
  auth: AuthContext,
  id: string,
  patch: z.output<typeof UpdateDelegationRequest>,
) {
  const current = await getDelegation(deps, auth, id);
  return save(deps, auth, id, {
    userId: patch.userId ?? current.userId,
    substituteUserId: patch.substituteUserId ?? current.substituteUserId,
    formId: patch.formId === undefined ? current.formId : patch.formId,
    from: patch.from ?? current.from,
    to: patch.to ?? current.to,
  });
}

export async function deleteDelegation(deps: UnitDeps, auth: AuthContext, id: string): Promise<void> {
  await getDelegation(deps, auth, id);
  await inUnit(deps, async ({ tx }) => {
    const row = await repo.findDelegation(tx, auth.organizationId, id);
    if (!row) return;
    await repo.deleteDelegation(tx, auth.organizationId, id);
    await cutShort(tx, row, new Date());
  });
}

/** An absence ended before its planned end (shortened or deleted): the user's reviews fall due when it now ends. */
async function cutShort(tx: Queryable, row: repo.DelegationRow, endsAt: Date): Promise<void> {
  const at = new Date(Math.max(Math.min(endsAt.getTime(), row.ends_at.getTime()), Date.now()));
  if (at < row.ends_at) await substitutes.backAt(tx, row.organization_id, row.user_id, row.form_id, at);
}

/** Links of substitutes followed at the most (A→B→C…). */
export const MAX_CHAIN = 10;

/**
 * Who replaces an absent user on a task of `formId` now: their substitute, and that one's when
 * absent too (A→B→C), per-form delegations before the default one at every link. A chain that
 * comes back to someone already in it, or that ends without a present active member, gives nobody.
 * Undefined also when the user is present. `awayUntil`: when the user's own absence ends.
 */
export async function presentSubstitute(
  tx: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
  at: Date,
): Promise<{ userId: string; awayUntil: Date } | undefined> {
  const chain = new Set([userId]);
  let current = userId;
  let awayUntil: Date | undefined;
  for (let link = 0; link < MAX_CHAIN; link++) {
    const next = await repo.substituteAt(tx, organizationId, current, formId, at);
    if (next === undefined) return awayUntil && { userId: current, awayUntil };
    awayUntil ??= next.endsAt;
    if (chain.has(next.substituteUserId)) return undefined;
    if ((await members.activeUserIds(tx, organizationId, [next.substituteUserId])).length === 0) return undefined;
    chain.add(next.substituteUserId);
    current = next.substituteUserId;
  }
  return undefined;
}

/**
 * The in-transaction hook of every assignee addition: an absent user added to a task gets their
 * present substitute added beside them, in the same transaction, and stays with changes to review.
 */
export async function substituteAbsentAssignee(unit: Unit, added: DomainEvents['task.assignee_added']): Promise<void> {
  if (added.source === 'delegation') return;
  const formId = (await substitutes.formOfTask(unit.tx, added.organizationId, added.taskId)) ?? null;
  const substitute = await presentSubstitute(unit.tx, added.organizationId, added.userId, formId, new Date());
  if (!substitute) return;
  await substitutes.addSubstitute(
    unit,
    { kind: 'system', organizationId: added.organizationId },
    [added.taskId],
    { userId: added.userId, awayUntil: substitute.awayUntil },
    substitute.userId,
  );
}

export const APPLY_JOB = 'delegation.apply';
/** Tasks a substitute is added to in one transaction of a bulk application. */
export const APPLY_CHUNK = 500;

/**
 * Starts adding the substitute to the absent user's open tasks, now or when the period starts: a
 * durable job going through the tasks in chunks. A changed delegation starts over (a new generation;
 * the run of the old one stops at its next chunk).
 */
async function scheduleApplication(unit: Unit, organizationId: string, delegationId: string, startsAt: Date) {
  const generation = await repo.restartApplication(unit.tx, organizationId, delegationId);
  await enqueueJob(unit, {
    kind: APPLY_JOB,
    organizationId,
    payload: { delegationId, generation },
    uniqueKey: `${APPLY_JOB}:${delegationId}:${generation}:start`,
    runAfter: startsAt,
  });
}

/**
 * One chunk of a delegation's bulk application, in the job's transaction: the next tasks in id order
 * get their present substitute (per form, through the chain), progress is recorded and the next
 * chunk enqueued — all or nothing, so a run killed midway resumes after the last chunk committed.
 */
export async function applyChunk(unit: Unit, organizationId: string, delegationId: string, generation: number) {
  const application = await repo.lockApplication(unit.tx, organizationId, delegationId);
  if (!application || application.generation !== generation || application.state === 'done') return;
  const now = new Date();
  const done = (applied: number) =>
    repo.recordApplied(unit.tx, delegationId, {
      state: 'done',
      applied,
      total: applied,
      lastTaskId: application.last_task_id,
    });
  if (application.ends_at <= now) return done(application.applied);
  const { user_id: userId, form_id: formId } = application;
  const total = application.total ?? (await substitutes.countOpenTasksOf(unit.tx, organizationId, userId, formId));
  const chunk = await substitutes.openTasksOf(
    unit.tx,
    organizationId,
    userId,
    formId,
    application.last_task_id,
    APPLY_CHUNK,
  );
  const byForm = new Map<string, string[]>();
  for (const task of chunk) {
    const ids = byForm.get(task.formId) ?? [];
    ids.push(task.id);
    byForm.set(task.formId, ids);
  }
  for (const [taskFormId, ids] of byForm) {
    const substitute = await presentSubstitute(unit.tx, organizationId, userId, taskFormId, now);
    if (!substitute) continue;
    const absent = { userId, awayUntil: substitute.awayUntil };
    await substitutes.addSubstitute(unit, { kind: 'system', organizationId }, ids, absent, substitute.userId);
  }
  const applied = application.applied + chunk.length;
  const lastTaskId = chunk.at(-1)?.id ?? null;
  if (chunk.length < APPLY_CHUNK || !lastTaskId) return done(applied);
  await repo.recordApplied(unit.tx, delegationId, {
    state: 'running',
    applied,
    total: Math.max(total, applied),
    lastTaskId,
  });
  await enqueueJob(unit, {
    kind: APPLY_JOB,
    organizationId,
    payload: { delegationId, generation },
    uniqueKey: `${APPLY_JOB}:${delegationId}:${generation}:${lastTaskId}`,
  });
}

/** Removes delegations whose period is over (the daily clean-up); their substitutes stay on tasks. */
export function removeExpired(deps: UnitDeps, now: Date): Promise<number> {
  return inUnit(deps, ({ tx }) => repo.deleteExpired(tx, now));
}
