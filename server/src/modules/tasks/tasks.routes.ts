import { tasksApi } from '@shared/api/tasks';
import { Problem } from '../../platform/http/problem';
import { defineRoute } from '../../platform/http/routes';
import * as substitutes from './substitutes.service';
import * as activity from './task-activity.service';
import * as tasks from './tasks.service';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

export function tasksRoutes(deps: tasks.TasksDeps) {
  return [
    // Before /api/tasks/:taskId, which would otherwise take "search", "count" or "deleted" for an id.
    defineRoute({
      ...tasksApi.countTasks,
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await tasks.countTasks(deps, auth) }),
    }),
    defineRoute({
      ...tasksApi.listDeletedTasks,
      access: 'admin',
      handler: async ({ auth, query }) => ({ status: 200, body: await tasks.listDeletedTasks(deps, auth, query) }),
    }),
    defineRoute({
      ...tasksApi.searchTasks,
      bots: 'read',
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await tasks.searchTasks(deps, auth, query.q, query.limit),
      }),
    }),
    defineRoute({
      ...tasksApi.listTasks,
      bots: 'read',
      handler: async ({ auth, query }) => ({ status: 200, body: await tasks.listTasks(deps, auth, query) }),
    }),
    defineRoute({
      ...tasksApi.createTask,
      bots: 'write',
      handler: async ({ auth, body }) => ({ status: 201, body: await tasks.createTask(deps, auth, body) }),
    }),
    defineRoute({
      ...tasksApi.createTaskBatch,
      bots: 'write',
      handler: async ({ auth, params, body, req }) => {
        const key = req.get('idempotency-key');
        if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
          throw Problem.of('validation_failed', 'The Idempotency-Key header must be 1–200 letters, digits or . _ : -', {
            errors: [{ location: 'headers', pointer: '#/idempotency-key', detail: 'Invalid key', code: 'invalid_key' }],
          });
        }
        return tasks.createBatch(deps, auth, params.formId, body.tasks, key);
      },
    }),
    defineRoute({
      ...tasksApi.getTask,
      bots: 'read',
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.getTask(deps, auth, params.taskId) }),
    }),
    defineRoute({
      ...tasksApi.updateTask,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.updateTask(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      ...tasksApi.deleteTask,
      bots: 'write',
      handler: async ({ auth, params }) => {
        await tasks.deleteTask(deps, auth, params.taskId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...tasksApi.restoreTask,
      bots: 'write',
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.restoreTask(deps, auth, params.taskId) }),
    }),
    defineRoute({
      ...tasksApi.transitionTask,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.executeTaskTransition(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      ...tasksApi.addAssignee,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.assignManually(deps, auth, params.taskId, body.userId),
      }),
    }),
    defineRoute({
      ...tasksApi.removeAssignee,
      bots: 'write',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await tasks.unassign(deps, auth, params.taskId, params.userId),
      }),
    }),
    defineRoute({
      ...tasksApi.getTaskFieldHistory,
      bots: 'read',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await activity.fieldHistory(deps, auth, params.taskId),
      }),
    }),
    defineRoute({
      ...tasksApi.getTaskAudit,
      bots: 'read',
      handler: async ({ auth, params }) => ({ status: 200, body: await activity.auditLog(deps, auth, params.taskId) }),
    }),
    defineRoute({
      ...tasksApi.listTaskMessages,
      bots: 'read',
      handler: async ({ auth, params }) => ({ status: 200, body: await activity.messages(deps, auth, params.taskId) }),
    }),
    defineRoute({
      ...tasksApi.postTaskMessage,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 201,
        body: await activity.postMessage(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      ...tasksApi.acknowledgeDelegation,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await substitutes.acknowledgeDelegation(deps, auth, params.taskId),
      }),
    }),
    defineRoute({
      ...tasksApi.recordTaskView,
      handler: async ({ auth, params }) => {
        await activity.recordView(deps, auth, params.taskId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...tasksApi.getRecentTasks,
      handler: async ({ auth, query }) => ({ status: 200, body: await activity.recentTasks(deps, auth, query.limit) }),
    }),
    defineRoute({
      ...tasksApi.getInbox,
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await activity.inbox(deps, auth, query.reason, query.limit),
      }),
    }),
  ];
}
