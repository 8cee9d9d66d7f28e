import type { Task } from '@shared/api/tasks';
import { type Actor, actedBy } from '../../platform/auth/actor';
import type { AuthContext } from '../../platform/auth/auth-context';
import { inUnit } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as members from '../identity/members.service';
import * as activityRepo from './task-activity.repo';
import { taskVisibility } from './tasks.policy';
import { presentMessage, presentTasks } from './tasks.presenter';
import * as repo from './tasks.repo';
import { type TasksDeps, taskNotFound, visibleTaskSummary } from './tasks.service';

/** A task's activity: its field history, audit log, chat and views, and the home lists built on them. */

export async function fieldHistory(deps: Pick<TasksDeps, 'db'>, auth: Actor, taskId: string) {
  await visibleTaskSummary(deps.db, auth, taskId);
  const rows = await activityRepo.listFieldHistory(deps.db, auth.organizationId, taskId);
  return {
    items: rows.map((r) => ({
      id: r.id,
      fieldId: r.field_id,
      oldValue: r.old_value,
      newValue: r.new_value,
      actorUserId: r.actor_user_id,
      botId: r.bot_id,
      automationId: r.automation_id,
      changedAt: r.changed_at.toISOString(),
    })),
  };
}

export async function auditLog(deps: Pick<TasksDeps, 'db'>, auth: Actor, taskId: string) {
  await visibleTaskSummary(deps.db, auth, taskId);
  const rows = await activityRepo.listAudit(deps.db, auth.organizationId, taskId);
  return {
    items: rows.map((r) => ({
      id: r.id,
      action: r.action,
      actorUserId: r.actor_user_id,
      botId: r.bot_id,
      automationId: r.automation_id,
      details: r.details,
      createdAt: r.created_at.toISOString(),
    })),
  };
}

export async function messages(deps: Pick<TasksDeps, 'db'>, auth: Actor, taskId: string) {
  await visibleTaskSummary(deps.db, auth, taskId);
  return { items: (await activityRepo.listMessages(deps.db, auth.organizationId, taskId)).map(presentMessage) };
}

export async function postMessage(
  deps: TasksDeps,
  auth: Actor,
  taskId: string,
  input: { body: string; mentions: string[] },
) {
  const id = newId();
  await inUnit(deps, async (unit) => {
    if (!(await repo.findVisibleTask(unit.tx, taskVisibility(auth), taskId))) throw taskNotFound(taskId);
    const mentions = [...new Set(input.mentions)];
    const known = new Set(await members.knownUserIds(unit.tx, auth.organizationId, mentions));
    const unknown = mentions.filter((userId) => !known.has(userId));
    if (unknown.length > 0) {
      throw Problem.of('validation_failed', `Unknown users mentioned: ${unknown.join(', ')}.`, {
        errors: unknown.map((userId) => ({
          location: 'body' as const,
          pointer: `#/mentions/${input.mentions.indexOf(userId)}`,
          detail: 'There is no such user in your organization',
          code: 'unknown_user',
        })),
      });
    }
    await activityRepo.insertMessage(unit.tx, {
      id,
      organizationId: auth.organizationId,
      taskId,
      authorUserId: actedBy(auth).actorUserId,
      botId: actedBy(auth).botId,
      automationId: actedBy(auth).automationId,
      body: input.body,
      mentions,
    });
  });
  const all = await activityRepo.listMessages(deps.db, auth.organizationId, taskId);
  return presentMessage(all.find((m) => m.id === id) as activityRepo.MessageRow);
}

export async function recordView(deps: Pick<TasksDeps, 'db'>, auth: AuthContext, taskId: string): Promise<void> {
  await visibleTaskSummary(deps.db, auth, taskId);
  await activityRepo.recordView(deps.db, auth.organizationId, taskId, auth.userId);
}

export async function recentTasks(deps: Pick<TasksDeps, 'db'>, auth: AuthContext, limit: number) {
  const rows = await repo.recentViews(deps.db, taskVisibility(auth), limit);
  const tasks = await presentTasks(deps.db, auth, rows);
  return { items: rows.map((row, i) => ({ task: tasks[i] as Task, viewedAt: row.viewed_at.toISOString() })) };
}

export async function inbox(deps: Pick<TasksDeps, 'db'>, auth: AuthContext, reason: string | undefined, limit: number) {
  const rows = (await repo.inbox(deps.db, taskVisibility(auth), 500))
    .filter((row) => !reason || row.reason === reason)
    .slice(0, limit);
  const tasks = await presentTasks(deps.db, auth, rows);
  return {
    items: rows.map((row, i) => ({
      task: tasks[i] as Task,
      reason: row.reason as 'assigned' | 'mentioned' | 'delegation' | 'delegation_review',
      at: row.at.toISOString(),
    })),
  };
}
