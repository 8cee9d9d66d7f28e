import type { Queryable } from '../../platform/db/db';

/** SQL of a task's activity: its field history, audit log, chat and views. */

export async function listFieldHistory(db: Queryable, organizationId: string, taskId: string) {
  const { rows } = await db.query<{
    id: string;
    field_id: string;
    old_value: unknown;
    new_value: unknown;
    actor_user_id: string | null;
    bot_id: string | null;
    automation_id: string | null;
    changed_at: Date;
  }>(
    `SELECT id, field_id, old_value, new_value, actor_user_id, bot_id, automation_id, changed_at FROM field_history
      WHERE organization_id = $1 AND task_id = $2 ORDER BY changed_at DESC, id DESC`,
    [organizationId, taskId],
  );
  return rows;
}

export async function listAudit(db: Queryable, organizationId: string, taskId: string) {
  const { rows } = await db.query<{
    id: string;
    action: string;
    actor_user_id: string | null;
    bot_id: string | null;
    automation_id: string | null;
    details: Record<string, unknown>;
    created_at: Date;
  }>(
    `SELECT id, action, actor_user_id, bot_id, automation_id, details, created_at FROM task_audit_log
      WHERE organization_id = $1 AND task_id = $2 ORDER BY created_at DESC, id DESC`,
    [organizationId, taskId],
  );
  return rows;
}

export interface MessageRow {
  id: string;
  task_id: string;
  author_user_id: string | null;
  bot_id: string | null;
  automation_id: string | null;
  body: string;
  mentioned_user_ids: string[];
  created_at: Date;
}

export async function insertMessage(
  db: Queryable,
  message: {
    id: string;
    organizationId: string;
    taskId: string;
    authorUserId: string | null;
    botId?: string | null;
    automationId: string | null;
    body: string;
    mentions: string[];
  },
): Promise<void> {
  await db.query(
    `INSERT INTO task_messages (id, organization_id, task_id, author_user_id, automation_id, body, mentioned_user_ids, bot_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::uuid[], $8)`,
    [
      message.id,
      message.organizationId,
      message.taskId,
      message.authorUserId,
      message.automationId,
      message.body,
      message.mentions,
      message.botId ?? null,
    ],
  );
}

export async function listMessages(db: Queryable, organizationId: string, taskId: string): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT id, task_id, author_user_id, bot_id, automation_id, body, mentioned_user_ids::text[] AS mentioned_user_ids,
            created_at
       FROM task_messages WHERE organization_id = $1 AND task_id = $2 ORDER BY created_at, id`,
    [organizationId, taskId],
  );
  return rows;
}

export async function recordView(db: Queryable, organizationId: string, taskId: string, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO task_views (organization_id, task_id, user_id) VALUES ($1, $2, $3)
     ON CONFLICT (task_id, user_id) DO UPDATE SET viewed_at = now()`,
    [organizationId, taskId, userId],
  );
}
