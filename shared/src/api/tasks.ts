import { z } from 'zod';
import { endpoint } from './endpoint';

/** Field values by field id. Numbers travel as strings (normalised), users as `user:<id>` / `role:<id>`. */
export const FieldValues = z
  .record(z.uuid(), z.unknown())
  .meta({ id: 'FieldValues', description: 'Values by field id; null clears a value' });

/** The longest task title and description the server keeps (in characters; a title is trimmed first). */
export const TASK_TITLE_MAX = 500;
export const TASK_DESCRIPTION_MAX = 100_000;

const Title = z.string().trim().min(1, 'Enter a title').max(TASK_TITLE_MAX);
const Description = z.string().max(TASK_DESCRIPTION_MAX);

export const CreateTaskRequest = z
  .object({
    id: z.uuid().optional().meta({ description: 'Client-made UUID (offline creation)' }),
    formId: z.uuid(),
    title: Title,
    description: Description.default(''),
    fields: FieldValues.default({}),
  })
  .meta({ id: 'CreateTaskRequest' });

export const BatchTaskInput = CreateTaskRequest.omit({ formId: true }).meta({ id: 'BatchTaskInput' });

export const UpdateTaskRequest = z
  .object({ title: Title.optional(), description: Description.optional(), fields: FieldValues.optional() })
  .meta({ id: 'UpdateTaskRequest' });

export const TransitionRequest = z
  .object({ statusId: z.uuid(), comment: z.string().trim().max(10_000).optional() })
  .meta({ id: 'TransitionRequest' });

export const Assignee = z
  .object({
    userId: z.uuid(),
    source: z.string(),
    delegated_from_user_id: z.uuid().nullable(),
    pending_review: z.boolean(),
    addedAt: z.iso.datetime(),
  })
  .meta({ id: 'Assignee' });

export const Task = z
  .object({
    id: z.uuid(),
    formId: z.uuid(),
    statusId: z.uuid(),
    title: z.string(),
    description: z.string(),
    fields: z.record(z.string(), z.unknown()),
    labels: z.record(z.string(), z.array(z.object({ id: z.string(), label: z.string(), deleted: z.boolean() }))).meta({
      description: 'Display labels of the rows chosen in `table` fields, by field id; deleted rows are marked',
    }),
    assignees: z.array(Assignee),
    createdBy: z.uuid().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Task' });
export type Task = z.infer<typeof Task>;

export const TaskList = z.object({ items: z.array(Task), nextCursor: z.string().nullable() }).meta({ id: 'TaskList' });

export const TaskCount = z
  .object({ count: z.number().int().nonnegative() })
  .meta({ id: 'TaskCount', description: 'Tasks the caller can see' });

export const DeletedTask = z
  .object({
    id: z.uuid(),
    title: z.string(),
    formId: z.uuid(),
    formName: z.string(),
    deletedAt: z.iso.datetime(),
    /** Who deleted it, as its activity log says (null for a bot, or a log that says nothing). */
    deletedBy: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  })
  .meta({ id: 'DeletedTask' });
export type DeletedTask = z.infer<typeof DeletedTask>;

export const DeletedTaskList = z
  .object({ items: z.array(DeletedTask), nextCursor: z.string().nullable() })
  .meta({ id: 'DeletedTaskList', description: 'Deleted tasks, most recently deleted first' });
export type DeletedTaskList = z.infer<typeof DeletedTaskList>;

export const DeletedTaskQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional(),
});

export const TaskListQuery = z.object({
  formId: z.uuid().optional(),
  statusId: z.uuid().optional(),
  assigneeId: z.uuid().optional(),
  updatedSince: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional(),
});

export const BatchCreateRequest = z
  .object({ tasks: z.array(BatchTaskInput).min(1) })
  .meta({ id: 'BatchCreateRequest', description: 'At most 100 tasks, created all or none' });
export const BatchCreateResponse = z.object({ items: z.array(Task) }).meta({ id: 'BatchCreateResponse' });

export const FieldHistoryEntry = z
  .object({
    id: z.uuid(),
    fieldId: z.uuid(),
    oldValue: z.unknown(),
    newValue: z.unknown(),
    actorUserId: z.uuid().nullable(),
    botId: z.uuid().nullable(),
    automationId: z.uuid().nullable().meta({ description: 'The automation that made the change, if one did' }),
    changedAt: z.iso.datetime(),
  })
  .meta({ id: 'FieldHistoryEntry' });

export const AuditEntry = z
  .object({
    id: z.uuid(),
    action: z.string(),
    actorUserId: z.uuid().nullable(),
    botId: z.uuid().nullable(),
    automationId: z.uuid().nullable().meta({ description: 'The automation that acted, if one did' }),
    details: z.record(z.string(), z.unknown()),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;

export const TaskMessage = z
  .object({
    id: z.uuid(),
    taskId: z.uuid(),
    authorUserId: z.uuid().nullable(),
    botId: z.uuid().nullable(),
    automationId: z.uuid().nullable().meta({ description: 'The automation that wrote it, if one did' }),
    body: z.string(),
    mentions: z.array(z.uuid()),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'TaskMessage' });

export const PostMessageRequest = z
  .object({ body: z.string().trim().min(1).max(20_000), mentions: z.array(z.uuid()).max(100).default([]) })
  .meta({ id: 'PostMessageRequest' });

export const AddAssigneeRequest = z.object({ userId: z.uuid() }).meta({ id: 'AddAssigneeRequest' });

export const SearchQuery = z.object({
  q: z.string().trim().min(1, 'Enter text to search for').max(200),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const InboxReason = z.enum(['assigned', 'mentioned', 'delegation', 'delegation_review']);
export const InboxItem = z.object({ task: Task, reason: InboxReason, at: z.iso.datetime() }).meta({ id: 'InboxItem' });
export const Inbox = z.object({ items: z.array(InboxItem) }).meta({ id: 'Inbox' });
export const RecentItem = z.object({ task: Task, viewedAt: z.iso.datetime() }).meta({ id: 'RecentItem' });
export const RecentList = z.object({ items: z.array(RecentItem) }).meta({ id: 'RecentList' });

export const Onboarding = z
  .object({
    steps: z.array(z.object({ key: z.enum(['form', 'colleagues', 'task']), done: z.boolean() })),
    completed: z.boolean(),
    dismissed: z.boolean(),
  })
  .meta({ id: 'Onboarding' });
export type Onboarding = z.infer<typeof Onboarding>;

const TaskParams = z.object({ taskId: z.uuid() });
const FormParams = z.object({ formId: z.uuid() });

/** The operations on tasks, their conversation and history, and the home page's lists. */
export const tasksApi = {
  countTasks: endpoint({
    method: 'get',
    path: '/api/tasks/count',
    operationId: 'countTasks',
    summary: 'How many tasks the caller can see (what a first sync of their replica brings)',
    tags: ['tasks'],
    responses: { 200: { description: 'The number of tasks', schema: TaskCount } },
  }),
  listDeletedTasks: endpoint({
    method: 'get',
    path: '/api/tasks/deleted',
    operationId: 'listDeletedTasks',
    summary: 'The organization’s deleted tasks, most recently deleted first (administrators; restore brings one back)',
    tags: ['tasks'],
    request: { query: DeletedTaskQuery },
    responses: { 200: { description: 'A page of deleted tasks', schema: DeletedTaskList } },
  }),
  searchTasks: endpoint({
    method: 'get',
    path: '/api/tasks/search',
    operationId: 'searchTasks',
    summary: 'Tasks whose title or description contains the text (case-insensitive), best first',
    tags: ['tasks'],
    request: { query: SearchQuery },
    responses: { 200: { description: 'Matching tasks', schema: TaskList } },
  }),
  listTasks: endpoint({
    method: 'get',
    path: '/api/tasks',
    operationId: 'listTasks',
    summary: 'Tasks the caller can see, newest change first, filtered',
    tags: ['tasks'],
    request: { query: TaskListQuery },
    responses: { 200: { description: 'A page of tasks', schema: TaskList } },
  }),
  createTask: endpoint({
    method: 'post',
    path: '/api/tasks',
    operationId: 'createTask',
    summary: 'Create a task of a form (in its initial status)',
    tags: ['tasks'],
    request: { body: CreateTaskRequest },
    responses: { 201: { description: 'The task', schema: Task } },
  }),
  createTaskBatch: endpoint({
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
  }),
  getTask: endpoint({
    method: 'get',
    path: '/api/tasks/:taskId',
    operationId: 'getTask',
    summary: 'One task',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'Task', schema: Task } },
  }),
  updateTask: endpoint({
    method: 'patch',
    path: '/api/tasks/:taskId',
    operationId: 'updateTask',
    summary: 'Edit title, description and field values',
    tags: ['tasks'],
    request: { params: TaskParams, body: UpdateTaskRequest },
    responses: { 200: { description: 'Task', schema: Task } },
  }),
  deleteTask: endpoint({
    method: 'delete',
    path: '/api/tasks/:taskId',
    operationId: 'deleteTask',
    summary: 'Delete a task',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  restoreTask: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/restore',
    operationId: 'restoreTask',
    summary: 'Bring a deleted task back (undo its deletion); a task not deleted is returned as it is',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'Task', schema: Task } },
  }),
  transitionTask: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/transition',
    operationId: 'transitionTask',
    summary: 'Move a task to another status, as the workflow allows',
    tags: ['tasks'],
    request: { params: TaskParams, body: TransitionRequest },
    responses: { 200: { description: 'Task in its new status', schema: Task } },
  }),
  addAssignee: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/assignees',
    operationId: 'addAssignee',
    summary: 'Assign a user to a task',
    tags: ['tasks'],
    request: { params: TaskParams, body: AddAssigneeRequest },
    responses: { 200: { description: 'Task', schema: Task } },
  }),
  removeAssignee: endpoint({
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
  }),
  getTaskFieldHistory: endpoint({
    method: 'get',
    path: '/api/tasks/:taskId/history',
    operationId: 'getTaskFieldHistory',
    summary: 'Changes of field values, newest first',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'History', schema: z.object({ items: z.array(FieldHistoryEntry) }) } },
  }),
  getTaskAudit: endpoint({
    method: 'get',
    path: '/api/tasks/:taskId/audit',
    operationId: 'getTaskAudit',
    summary: 'Every action on the task, newest first',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'Audit log', schema: z.object({ items: z.array(AuditEntry) }) } },
  }),
  listTaskMessages: endpoint({
    method: 'get',
    path: '/api/tasks/:taskId/messages',
    operationId: 'listTaskMessages',
    summary: 'The task’s conversation, oldest first',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'Messages', schema: z.object({ items: z.array(TaskMessage) }) } },
  }),
  postTaskMessage: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/messages',
    operationId: 'postTaskMessage',
    summary: 'Write in the task’s conversation, mentioning colleagues',
    tags: ['tasks'],
    request: { params: TaskParams, body: PostMessageRequest },
    responses: { 201: { description: 'The message', schema: TaskMessage } },
  }),
  acknowledgeDelegation: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/delegation/ack',
    operationId: 'acknowledgeDelegation',
    summary: 'The returning assignee has seen what their substitute did: the review flag clears',
    description: 'Only for the caller’s own assignee row with `pending_review`; otherwise 409 `conflict`.',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 200: { description: 'The task', schema: Task } },
  }),
  recordTaskView: endpoint({
    method: 'post',
    path: '/api/tasks/:taskId/view',
    operationId: 'recordTaskView',
    summary: 'Record that the caller viewed the task',
    tags: ['tasks'],
    request: { params: TaskParams },
    responses: { 204: { description: 'Recorded' } },
  }),
  getRecentTasks: endpoint({
    method: 'get',
    path: '/api/home/recent',
    operationId: 'getRecentTasks',
    summary: 'Tasks the caller viewed recently, newest first',
    tags: ['home'],
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }) },
    responses: { 200: { description: 'Recent tasks', schema: RecentList } },
  }),
  getInbox: endpoint({
    method: 'get',
    path: '/api/home/inbox',
    operationId: 'getInbox',
    summary: 'Tasks needing the caller, each with its reason',
    tags: ['home'],
    request: {
      query: z.object({ reason: InboxReason.optional(), limit: z.coerce.number().int().min(1).max(200).default(50) }),
    },
    responses: { 200: { description: 'Inbox', schema: Inbox } },
  }),
};
