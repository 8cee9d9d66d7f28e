import {
  AddAssigneeRequest,
  AuditEntry,
  BatchCreateRequest,
  BatchCreateResponse,
  CreateTaskRequest,
  DeletedTaskList,
  DeletedTaskQuery,
  FieldHistoryEntry,
  Inbox,
  InboxReason,
  PostMessageRequest,
  RecentList,
  SearchQuery,
  Task,
  TaskCount,
  TaskList,
  TaskListQuery,
  TaskMessage,
  TransitionRequest,
  UpdateTaskRequest,
} from '@shared/api/tasks';
import { z } from 'zod';
import { Problem } from '../../platform/http/problem';
import { defineRoute } from '../../platform/http/routes';
import * as tasks from './tasks.service';

const TaskParams = z.object({ taskId: z.uuid() });
const FormParams = z.object({ formId: z.uuid() });
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

export function tasksRoutes(deps: tasks.TasksDeps) {
  return [
    // Before /api/tasks/:taskId, which would otherwise take "search", "count" or "deleted" for an id.
    defineRoute({
      method: 'get',
      path: '/api/tasks/count',
      operationId: 'countTasks',
      summary: 'How many tasks the caller can see (what a first sync of their replica brings)',
      tags: ['tasks'],
      responses: { 200: { description: 'The number of tasks', schema: TaskCount } },
      handler: async ({ auth }) => ({ status: 200, body: await tasks.countTasks(deps, auth) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/deleted',
      operationId: 'listDeletedTasks',
      summary:
        'The organization’s deleted tasks, most recently deleted first (administrators; restore brings one back)',
      tags: ['tasks'],
      access: 'admin',
      request: { query: DeletedTaskQuery },
      responses: { 200: { description: 'A page of deleted tasks', schema: DeletedTaskList } },
      handler: async ({ auth, query }) => ({ status: 200, body: await tasks.listDeletedTasks(deps, auth, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/search',
      operationId: 'searchTasks',
      summary: 'Tasks whose title or description contains the text (case-insensitive), best first',
      tags: ['tasks'],
      request: { query: SearchQuery },
      responses: { 200: { description: 'Matching tasks', schema: TaskList } },
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await tasks.searchTasks(deps, auth, query.q, query.limit),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks',
      operationId: 'listTasks',
      summary: 'Tasks the caller can see, newest change first, filtered',
      tags: ['tasks'],
      request: { query: TaskListQuery },
      responses: { 200: { description: 'A page of tasks', schema: TaskList } },
      handler: async ({ auth, query }) => ({ status: 200, body: await tasks.listTasks(deps, auth, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks',
      operationId: 'createTask',
      summary: 'Create a task of a form (in its initial status)',
      tags: ['tasks'],
      request: { body: CreateTaskRequest },
      responses: { 201: { description: 'The task', schema: Task } },
      handler: async ({ auth, body }) => ({ status: 201, body: await tasks.createTask(deps, auth, body) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/forms/:formId/tasks/batch',
      operationId: 'createTaskBatch',
      summary: 'Create up to 100 tasks at once, all or none',
      description:
        'Send an `Idempotency-Key` header (one per chunk): a repeat returns the first result and creates nothing; ' +
        'the same key with another body answers 422. More than 100 tasks answers 400 `batch_too_large`.',
      tags: ['tasks'],
      request: { params: FormParams, body: BatchCreateRequest },
      responses: { 201: { description: 'The created tasks, in request order', schema: BatchCreateResponse } },
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
      method: 'get',
      path: '/api/tasks/:taskId',
      operationId: 'getTask',
      summary: 'One task',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 200: { description: 'Task', schema: Task } },
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.getTask(deps, auth, params.taskId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/tasks/:taskId',
      operationId: 'updateTask',
      summary: 'Edit title, description and field values',
      tags: ['tasks'],
      request: { params: TaskParams, body: UpdateTaskRequest },
      responses: { 200: { description: 'Task', schema: Task } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.updateTask(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/tasks/:taskId',
      operationId: 'deleteTask',
      summary: 'Delete a task',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth, params }) => {
        await tasks.deleteTask(deps, auth, params.taskId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks/:taskId/restore',
      operationId: 'restoreTask',
      summary: 'Bring a deleted task back (undo its deletion); a task not deleted is returned as it is',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 200: { description: 'Task', schema: Task } },
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.restoreTask(deps, auth, params.taskId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks/:taskId/transition',
      operationId: 'transitionTask',
      summary: 'Move a task to another status, as the workflow allows',
      tags: ['tasks'],
      request: { params: TaskParams, body: TransitionRequest },
      responses: { 200: { description: 'Task in its new status', schema: Task } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.executeTaskTransition(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks/:taskId/assignees',
      operationId: 'addAssignee',
      summary: 'Assign a user to a task',
      tags: ['tasks'],
      request: { params: TaskParams, body: AddAssigneeRequest },
      responses: { 200: { description: 'Task', schema: Task } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await tasks.assignManually(deps, auth, params.taskId, body.userId),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/tasks/:taskId/assignees/:userId',
      operationId: 'removeAssignee',
      summary: 'Remove an assignee from a task',
      description:
        'A person whom the task’s `user` fields name (directly or through a role) stays assigned while the field names them: ' +
        'removing them is refused with `409 assigned_by_field`; change the field instead.',
      tags: ['tasks'],
      request: { params: TaskParams.extend({ userId: z.uuid() }) },
      responses: { 200: { description: 'Task', schema: Task } },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await tasks.unassign(deps, auth, params.taskId, params.userId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/:taskId/history',
      operationId: 'getTaskFieldHistory',
      summary: 'Changes of field values, newest first',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 200: { description: 'History', schema: z.object({ items: z.array(FieldHistoryEntry) }) } },
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.fieldHistory(deps, auth, params.taskId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/:taskId/audit',
      operationId: 'getTaskAudit',
      summary: 'Every action on the task, newest first',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 200: { description: 'Audit log', schema: z.object({ items: z.array(AuditEntry) }) } },
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.auditLog(deps, auth, params.taskId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/:taskId/messages',
      operationId: 'listTaskMessages',
      summary: 'The task’s conversation, oldest first',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 200: { description: 'Messages', schema: z.object({ items: z.array(TaskMessage) }) } },
      handler: async ({ auth, params }) => ({ status: 200, body: await tasks.messages(deps, auth, params.taskId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks/:taskId/messages',
      operationId: 'postTaskMessage',
      summary: 'Write in the task’s conversation, mentioning colleagues',
      tags: ['tasks'],
      request: { params: TaskParams, body: PostMessageRequest },
      responses: { 201: { description: 'The message', schema: TaskMessage } },
      handler: async ({ auth, params, body }) => ({
        status: 201,
        body: await tasks.postMessage(deps, auth, params.taskId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/tasks/:taskId/view',
      operationId: 'recordTaskView',
      summary: 'Record that the caller viewed the task',
      tags: ['tasks'],
      request: { params: TaskParams },
      responses: { 204: { description: 'Recorded' } },
      handler: async ({ auth, params }) => {
        await tasks.recordView(deps, auth, params.taskId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/home/recent',
      operationId: 'getRecentTasks',
      summary: 'Tasks the caller viewed recently, newest first',
      tags: ['home'],
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }) },
      responses: { 200: { description: 'Recent tasks', schema: RecentList } },
      handler: async ({ auth, query }) => ({ status: 200, body: await tasks.recentTasks(deps, auth, query.limit) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/home/inbox',
      operationId: 'getInbox',
      summary: 'Tasks needing the caller, each with its reason',
      tags: ['home'],
      request: {
        query: z.object({ reason: InboxReason.optional(), limit: z.coerce.number().int().min(1).max(200).default(50) }),
      },
      responses: { 200: { description: 'Inbox', schema: Inbox } },
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await tasks.inbox(deps, auth, query.reason, query.limit),
      }),
    }),
  ];
}
